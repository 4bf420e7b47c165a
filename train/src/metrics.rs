//! Training metrics: TensorBoard scalars (via tensorboard-rs) plus a `metrics.jsonl` copy with
//! one JSON object per [`MetricsSink::log`] call, readable without protobuf.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tensorboard_proto::event::{Event, SessionLog, SessionLog_SessionStatus};
use tensorboard_rs::summary::scalar;
use tensorboard_rs::summary_writer::FileWriter;

/// Name of the JSON-lines copy of the metrics inside the log directory.
pub const METRICS_JSONL: &str = "metrics.jsonl";
/// How the names of TensorBoard's event files (written beside it) begin.
pub const TFEVENTS_PREFIX: &str = "events.out.tfevents";

/// Errors of the metrics sink (tensorboard-rs itself panics on I/O errors, so the directory is
/// checked up front and problems are reported here instead).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsError {
    /// The log directory cannot be created or written.
    #[error("metrics directory {path}: {source}")]
    Dir {
        /// The log directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Writing `metrics.jsonl` failed.
    #[error("writing {path}: {source}")]
    Write {
        /// The JSON-lines file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// One line of `metrics.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricsRecord {
    /// Training step (x axis).
    pub step: u64,
    /// Seconds since the Unix epoch when the record was written.
    pub wall_time: f64,
    /// Scalar values by tag (non-finite values are written as `null`).
    pub scalars: BTreeMap<String, Option<f64>>,
}

/// Writes scalars to TensorBoard event files and to `metrics.jsonl` in one directory.
///
/// Every [`log`](Self::log) reaches `metrics.jsonl` before it returns, so a run killed without
/// warning loses no record; tensorboard-rs writes its file on a thread of its own, and its
/// file is only complete once the sink is dropped (or [`close`](Self::close)d).
pub struct MetricsSink {
    dir: PathBuf,
    jsonl_path: PathBuf,
    jsonl: BufWriter<File>,
    tb: Option<FileWriter>,
}

impl std::fmt::Debug for MetricsSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsSink")
            .field("dir", &self.dir)
            .field("tensorboard", &self.tb.is_some())
            .finish_non_exhaustive()
    }
}

impl MetricsSink {
    /// Opens (creating it if needed) `dir`, appends to `dir/metrics.jsonl` and, if
    /// `tensorboard` is true, starts a TensorBoard event file in `dir`.
    pub fn new(dir: &Path, tensorboard: bool) -> Result<Self, MetricsError> {
        let dir_err = |source| MetricsError::Dir {
            path: dir.to_path_buf(),
            source,
        };
        fs::create_dir_all(dir).map_err(dir_err)?;
        if !dir.is_dir() {
            return Err(dir_err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        let jsonl_path = dir.join(METRICS_JSONL);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&jsonl_path)
            .map_err(dir_err)?;
        // Probe that the directory itself accepts new files (tensorboard-rs panics otherwise).
        if tensorboard {
            let probe = dir.join(format!(".write-probe-{}", std::process::id()));
            File::create(&probe).map_err(dir_err)?;
            let _ = fs::remove_file(&probe);
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            jsonl_path,
            jsonl: BufWriter::new(file),
            tb: tensorboard.then(|| FileWriter::new(dir)),
        })
    }

    /// Opens the sink of a run that continues from its checkpoint at `step`, and returns it with
    /// the number of records it dropped from `metrics.jsonl`: those logged after `step` by a run
    /// that stopped without saving them (a kill, a second Ctrl-C, a diverged update), a last line
    /// cut short, and any line that is not a record. TensorBoard gets a session-start event at
    /// `step + 1`, which makes it hide the points the earlier event files hold after `step`, as
    /// it does for TensorFlow's and PyTorch's restarts; the curves then never run backwards.
    pub fn resume(dir: &Path, tensorboard: bool, step: u64) -> Result<(Self, usize), MetricsError> {
        let path = dir.join(METRICS_JSONL);
        let write_err = |source| MetricsError::Write {
            path: path.clone(),
            source,
        };
        let mut dropped = 0;
        match fs::read_to_string(&path) {
            Ok(text) => {
                let mut kept = String::with_capacity(text.len());
                for line in text.lines() {
                    match serde_json::from_str::<MetricsRecord>(line) {
                        Ok(r) if r.step <= step => {
                            kept.push_str(line);
                            kept.push('\n');
                        }
                        _ => dropped += 1,
                    }
                }
                if dropped > 0 || !text.is_empty() && !text.ends_with('\n') {
                    uno_agents::neural::write_atomic(&path, kept.as_bytes())
                        .map_err(|e| write_err(std::io::Error::other(e.to_string())))?;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(write_err(e)),
        }
        let mut sink = Self::new(dir, tensorboard)?;
        if let Some(tb) = sink.tb.as_mut() {
            let mut log = SessionLog::new();
            log.set_status(SessionLog_SessionStatus::START);
            let mut event = Event::new();
            event.set_session_log(log);
            tb.add_event(&event, tb_step(step.saturating_add(1)));
            tb.flush();
        }
        Ok((sink, dropped))
    }

    /// The log directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Logs several scalars at `step` (one JSON line, one TensorBoard scalar per tag).
    pub fn log<S: AsRef<str>>(
        &mut self,
        step: u64,
        scalars: &[(S, f64)],
    ) -> Result<(), MetricsError> {
        let mut map = BTreeMap::new();
        for (tag, value) in scalars {
            let tag = tag.as_ref();
            if let Some(tb) = self.tb.as_mut()
                && value.is_finite()
            {
                tb.add_summary(scalar(tag, *value as f32), tb_step(step));
            }
            map.insert(tag.to_string(), value.is_finite().then_some(*value));
        }
        let record = MetricsRecord {
            step,
            wall_time: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            scalars: map,
        };
        let write_err = |source| MetricsError::Write {
            path: self.jsonl_path.clone(),
            source,
        };
        serde_json::to_writer(&mut self.jsonl, &record)
            .map_err(std::io::Error::from)
            .map_err(write_err)?;
        self.jsonl.write_all(b"\n").map_err(write_err)?;
        self.flush()
    }

    /// Flushes the JSON-lines file and asks TensorBoard to flush (asynchronously).
    pub fn flush(&mut self) -> Result<(), MetricsError> {
        if let Some(tb) = self.tb.as_mut() {
            tb.flush();
        }
        self.jsonl.flush().map_err(|source| MetricsError::Write {
            path: self.jsonl_path.clone(),
            source,
        })
    }

    /// Flushes and closes both outputs, waiting for the TensorBoard writer to finish.
    pub fn close(mut self) -> Result<(), MetricsError> {
        let result = self.flush();
        self.tb.take();
        result
    }
}

impl Drop for MetricsSink {
    fn drop(&mut self) {
        let _ = self.jsonl.flush();
    }
}

/// A step as TensorBoard's writer takes it.
fn tb_step(step: u64) -> usize {
    usize::try_from(step).unwrap_or(usize::MAX)
}

/// Reads every record of a `metrics.jsonl` file (skipping a trailing partial line).
pub fn read_jsonl(path: &Path) -> std::io::Result<Vec<MetricsRecord>> {
    let text = fs::read_to_string(path)?;
    Ok(text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        std::env::temp_dir().join(format!(
            "uno-metrics-test-{tag}-{}-{nanos}",
            std::process::id()
        ))
    }

    #[test]
    fn logs_three_steps_to_jsonl_and_tensorboard() {
        let dir = temp_dir("log").join("run1");
        let mut sink = MetricsSink::new(&dir, true).expect("sink");
        for step in 0..3u64 {
            sink.log(
                step * 100,
                &[
                    ("loss/total", 1.0 / (step as f64 + 1.0)),
                    ("policy/entropy", 0.5),
                ],
            )
            .expect("log");
        }
        sink.log(300, &[("bad", f64::NAN)]).expect("log nan");
        drop(sink);

        let records = read_jsonl(&dir.join(METRICS_JSONL)).expect("read jsonl");
        assert_eq!(records.len(), 4);
        assert_eq!(
            records.iter().map(|r| r.step).collect::<Vec<_>>(),
            [0, 100, 200, 300]
        );
        assert_eq!(records[1].scalars["loss/total"], Some(0.5));
        assert_eq!(records[2].scalars["policy/entropy"], Some(0.5));
        assert_eq!(records[3].scalars["bad"], None);

        let events: Vec<_> = fs::read_dir(&dir)
            .expect("dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(TFEVENTS_PREFIX))
            .collect();
        assert_eq!(events.len(), 1);
        let len = events[0].metadata().expect("meta").len();
        // 6 scalar events plus the file-version header.
        assert!(len > 6 * 20, "event file only {len} bytes");
        let _ = fs::remove_dir_all(dir.parent().expect("parent"));
    }

    /// The events of every TensorBoard file in `dir`, in file-name (creation) order.
    fn events_in(dir: &Path) -> Vec<Event> {
        use protobuf::Message;
        let mut files: Vec<PathBuf> = fs::read_dir(dir)
            .expect("dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().contains(TFEVENTS_PREFIX))
            .collect();
        files.sort();
        let mut events = Vec::new();
        for file in files {
            // TFRecord: u64 length, u32 CRC of it, the data, u32 CRC of the data.
            let bytes = fs::read(file).expect("read");
            let mut at = 0;
            while at + 12 <= bytes.len() {
                let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
                let data = &bytes[at + 12..at + 12 + len];
                events.push(Event::parse_from_bytes(data).expect("event"));
                at += 12 + len + 4;
            }
        }
        events
    }

    #[test]
    fn a_resumed_sink_drops_what_came_after_the_checkpoint() {
        let dir = temp_dir("resume");
        let mut sink = MetricsSink::new(&dir, true).expect("sink");
        for step in [100u64, 200, 300, 400] {
            sink.log(step, &[("x", step as f64)]).expect("log");
        }
        // A kill leaves no chance to close: every record is on disk already.
        std::mem::forget(sink);
        let path = dir.join(METRICS_JSONL);
        assert_eq!(read_jsonl(&path).expect("read").len(), 4);
        // ... and may cut the file in the middle of a line.
        let mut f = OpenOptions::new().append(true).open(&path).expect("open");
        f.write_all(br#"{"step":500,"wall_ti"#).expect("write");
        drop(f);

        // The run continues from its checkpoint at step 200.
        std::thread::sleep(std::time::Duration::from_millis(1100)); // a new event file name
        let (mut sink, dropped) = MetricsSink::resume(&dir, true, 200).expect("resume");
        assert_eq!(dropped, 3, "300, 400 and the cut line");
        sink.log(250, &[("x", 250.0)]).expect("log");
        sink.close().expect("close");
        let text = fs::read_to_string(&path).expect("read");
        let steps: Vec<u64> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<MetricsRecord>(l)
                    .expect("a whole record")
                    .step
            })
            .collect();
        assert_eq!(steps, [100, 200, 250]);

        // TensorBoard: the second file opens with a session start at step 201, which hides the
        // first file's points at 300 and 400.
        let events = events_in(&dir);
        let starts: Vec<i64> = events
            .iter()
            .filter(|e| e.has_session_log())
            .map(|e| {
                assert_eq!(
                    e.get_session_log().get_status(),
                    SessionLog_SessionStatus::START
                );
                e.get_step()
            })
            .collect();
        assert_eq!(starts, [201]);
        let scalar_steps: Vec<i64> = events
            .iter()
            .filter(|e| e.has_summary())
            .map(|e| e.get_step())
            .collect();
        assert_eq!(scalar_steps, [100, 200, 300, 400, 250]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn appends_across_sinks_and_reports_bad_dirs() {
        let dir = temp_dir("append");
        for step in [1u64, 2] {
            let mut sink = MetricsSink::new(&dir, false).expect("sink");
            sink.log(step, &[("x".to_string(), step as f64)])
                .expect("log");
            sink.close().expect("close");
        }
        let records = read_jsonl(&dir.join(METRICS_JSONL)).expect("read");
        assert_eq!(records.len(), 2);
        // A regular file where the directory should be: an error, not a panic.
        let file = dir.join("not-a-dir");
        fs::write(&file, b"x").expect("write");
        assert!(matches!(
            MetricsSink::new(&file, true),
            Err(MetricsError::Dir { .. })
        ));
        let _ = fs::remove_dir_all(&dir);
    }
}
