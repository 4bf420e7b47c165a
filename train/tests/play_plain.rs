//! End-to-end tests of `uno-attack play --plain` (stdin/stdout) and
//! `uno-attack replay --plain`: a full round with scripted lines, refusals of
//! bad input, clean exit at end of input, Flash's timer, and the transcript.
//! Every wait has a time limit.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{bin, spawn_piped, tail, tmp};

/// A running `uno-attack`: the child, its stdin, and threads draining its
/// stdout and stderr.
type Running = (
    std::process::Child,
    std::process::ChildStdin,
    std::thread::JoinHandle<String>,
    std::thread::JoinHandle<String>,
);

/// Starts `uno-attack` with piped stdin, stdout and stderr (drained on threads).
fn spawn(args: &[&str]) -> Running {
    let mut child = spawn_piped(args);
    let stdin = child.stdin.take().expect("stdin");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out_t = drain(Box::new(child.stdout.take().expect("stdout")));
    let err_t = drain(Box::new(child.stderr.take().expect("stderr")));
    (child, stdin, out_t, err_t)
}

/// Runs the binary with `input` on stdin (closed after `hold`), killing it after `limit`.
fn run(args: &[&str], input: String, hold: Duration, limit: Duration) -> (i32, String, String) {
    run_bytes(args, input.into_bytes(), hold, limit)
}

/// [`run`] with bytes on stdin (not UTF-8, perhaps).
fn run_bytes(
    args: &[&str],
    input: Vec<u8>,
    hold: Duration,
    limit: Duration,
) -> (i32, String, String) {
    let (mut child, mut stdin, out_t, err_t) = spawn(args);
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
        std::thread::sleep(hold);
        drop(stdin);
    });
    let start = Instant::now();
    let code = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st.code().unwrap_or(-1);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("uno-attack {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    (code, out_t.join().unwrap(), err_t.join().unwrap())
}

#[test]
fn plain_mode_plays_a_full_round_and_refuses_bad_input() {
    let tr = tmp("plain.json");
    let trs = tr.to_str().unwrap();
    let mut input = String::from("bogus\nchallenge\n99\n999999999999999999999999\nhelp\nlook\n");
    for _ in 0..3000 {
        input.push_str("1\n");
    }
    let (code, out, err) = run(
        &[
            "play",
            "--plain",
            "--rules",
            "attack-2010",
            "--players",
            "3",
            "--seed",
            "11",
            "--think-ms",
            "0",
            "--rounds",
            "1",
            "--transcript",
            trs,
        ],
        input,
        Duration::ZERO,
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "stderr: {err}\nstdout tail: {}", tail(&out));
    assert!(out.contains("bot: "), "the bot in use is printed");
    assert!(out.contains("Not understood: `bogus`"), "{}", tail(&out));
    assert!(
        out.contains("Refused: illegal action `challenge`"),
        "{}",
        tail(&out)
    );
    assert!(out.contains("No item 99 in the menu"));
    assert!(out.contains("No item 999999999999999999999999 in the menu"));
    assert!(out.contains("Commands:"));
    assert!(out.contains("Your hand ("));
    assert!(out.contains("Choose:"));
    assert!(
        out.contains("the round:") || out.contains("cut short"),
        "the round ends: {}",
        tail(&out)
    );

    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tr).expect("transcript written"))
            .expect("transcript is JSON");
    assert_eq!(t["players"], 3);
    assert_eq!(t["seed"], 11);
    assert_eq!(t["human_seat"], 0);
    let steps = t["steps"].as_array().expect("steps");
    assert!(steps.iter().any(|s| s["human"] == true), "you acted");
    assert!(steps.iter().any(|s| s["human"] == false), "bots acted");
    assert!(steps.iter().all(|s| s["name"].is_string()));
    let last = steps.last().expect("a step");
    assert!(
        last["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["event"] == "round-over"),
        "the last step ends the round"
    );

    let (code, rep, err) = run(
        &["replay", "--plain", trs],
        String::new(),
        Duration::ZERO,
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "replay failed: {err}");
    assert!(rep.contains(&format!("[step {}/{}]", steps.len(), steps.len())));
    assert!(rep.contains("End: Round over") || rep.contains("End: Match over"));
    // Replay is after the game: every hand is shown (after each deal, then
    // those a step changed), and a new round's blank line is not indented.
    for who in ["Your hand (", "Bot 1 (", "Bot 2 ("] {
        assert!(rep.contains(who), "{who}: {}", tail(&rep));
    }
    assert!(
        !rep.lines().any(|l| !l.is_empty() && l.trim().is_empty()),
        "no indented empty line"
    );

    // A damaged transcript is refused with a message naming what is wrong.
    let first_action = steps
        .iter()
        .position(|s| s["kind"] == "action")
        .expect("an action step");
    // An event of a step edited (a card played, for one): the step no
    // longer replays to what was recorded.
    let (event_step, event_at) = steps
        .iter()
        .enumerate()
        .find_map(|(i, s)| {
            let at = s["events"]
                .as_array()?
                .iter()
                .position(|e| e["event"] == "played")?;
            Some((i, at))
        })
        .expect("a card was played");
    type Damage = Box<dyn Fn(&mut serde_json::Value)>;
    let damaged: [(&str, Damage, &str); 12] = [
        (
            "rules",
            Box::new(|t| t["rules_toml"] = "garbage =".into()),
            "line 1, column 10: a value is missing after `=` in `garbage =`",
        ),
        (
            "events",
            Box::new(move |t| {
                let e = &mut t["steps"][event_step]["events"][event_at];
                e["seat"] = (e["seat"].as_u64().unwrap() + 1).into();
            }),
            "does not replay to the recorded events",
        ),
        (
            "names",
            Box::new(|t| t["names"] = serde_json::json!(["You"])),
            "names has 1 entries for 3 players",
        ),
        (
            "step-name",
            Box::new(move |t| t["steps"][first_action]["name"] = "timeout".into()),
            "but is recorded with the name `timeout`",
        ),
        (
            "step-action",
            Box::new(move |t| t["steps"][first_action]["action"] = 200.into()),
            "action id 200 is out of range (the action space has 98 actions)",
        ),
        (
            "scores",
            Box::new(|t| t["scores"] = serde_json::json!([1, 2])),
            "scores has 2 entries for 3 players",
        ),
        (
            "round",
            Box::new(move |t| t["steps"][first_action]["round"] = 99.into()),
            "is recorded in round 99",
        ),
        (
            "totals",
            Box::new(|t| t["scores"] = serde_json::json!([1, 2, 3])),
            "the recorded scores [1, 2, 3] (match winner None) are not what the steps replay to",
        ),
        (
            "winner",
            Box::new(|t| t["match_winner"] = 2.into()),
            "are not what the steps replay to",
        ),
        (
            "escapes",
            Box::new(|t| t["names"][1] = "\u{1b}[2JEVIL".into()),
            "names[1] holds control characters",
        ),
        (
            // Any string reaches the terminal, not only names.
            "step-escapes",
            Box::new(move |t| {
                t["steps"][first_action]["slap_race"] = "\u{1b}]0;evil title\u{7}".into()
            }),
            &*format!("steps[{first_action}].slap_race holds control characters"),
        ),
        (
            // A time-out's seat is shown as the one who timed out (it used
            // to index the names unchecked: a panic past the table).
            "timeout-seat",
            Box::new(|t| {
                let last = t["steps"].as_array().unwrap().len();
                t["steps"].as_array_mut().unwrap().push(serde_json::json!({
                    "kind": "timeout", "round": 1, "seat": 7, "human": true,
                    "action": null, "name": "timeout", "events": [], "log": []
                }));
                assert!(last > 0);
            }),
            "seat 7 is recorded, but",
        ),
    ];
    for (name, damage, message) in damaged {
        let mut bad = t.clone();
        damage(&mut bad);
        let path = tmp(&format!("damaged-{name}.json"));
        std::fs::write(&path, bad.to_string()).unwrap();
        let (code, _, err) = run(
            &["replay", "--plain", path.to_str().unwrap()],
            String::new(),
            Duration::ZERO,
            Duration::from_secs(30),
        );
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(message), "{name}: {err}");
        // The message names the file.
        assert!(err.contains(path.to_str().unwrap()), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_file(&tr);
}

#[test]
fn plain_mode_quits_cleanly_at_end_of_input() {
    let (code, out, err) = run(
        &[
            "play",
            "--plain",
            "--rules",
            "classic",
            "--players",
            "2",
            "--seed",
            "3",
            "--think-ms",
            "0",
            "--seat",
            "1",
        ],
        String::new(),
        Duration::ZERO,
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "stderr: {err}");
    assert!(out.contains("End of input: quitting."), "{}", tail(&out));
}

#[test]
fn plain_flash_timer_runs_out() {
    // Nothing typed for a while: each of your turns times out (F-3: draw two).
    let (code, out, err) = run(
        &[
            "play",
            "--plain",
            "--rules",
            "flash",
            "--players",
            "3",
            "--seed",
            "5",
            "--think-ms",
            "0",
            "--timer-secs",
            "0.2",
        ],
        String::new(),
        // Input stays open this long: start-up (the bot's network loads
        // first) must leave time for a 0.2 s turn to run out on a loaded machine.
        Duration::from_millis(5000),
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "stderr: {err}");
    assert!(out.contains("You ran out of time (F-3)"), "{}", tail(&out));
}

#[test]
fn bad_flags_exit_with_code_2() {
    for args in [
        vec!["play", "--plain", "--players", "1"],
        vec!["play", "--plain", "--seat", "5", "--players", "3"],
        vec!["play", "--plain", "--bot", "nonsense"],
        vec!["play", "--plain", "--rules", "no-such-rules"],
        // Timing flags are bounded (at most 60000 ms), not stuck for ages.
        vec!["play", "--plain", "--think-ms", "18446744073709551615"],
        vec!["play", "--plain", "--anim-ms", "60001"],
        vec!["play", "--plain", "--bot-reaction-ms", "99999999999"],
        vec!["play", "--plain", "--uno-window-ms", "86400000"],
    ] {
        let (code, _out, err) = run(
            &args,
            String::new(),
            Duration::ZERO,
            Duration::from_secs(30),
        );
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// A classic 2-player game in plain mode, quit at once, writing its
/// transcript to `path`: exit code, stdout, stderr.
fn quit_with_transcript(path: &str) -> (i32, String, String) {
    run(
        &[
            "play",
            "--plain",
            "--rules",
            "classic",
            "--players",
            "2",
            "--think-ms",
            "0",
            "--transcript",
            path,
        ],
        "quit\n".into(),
        Duration::ZERO,
        Duration::from_secs(30),
    )
}

#[test]
fn an_unwritable_transcript_is_refused_before_the_first_move() {
    let (code, out, err) = quit_with_transcript("/no/such/dir/game.json");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write /no/such/dir/game.json"), "{err}");
    assert!(out.is_empty(), "no game was shown: {}", tail(&out));
}

#[test]
fn a_bot_checkpoint_trained_for_other_rules_is_refused() {
    let ckpt = concat!(env!("CARGO_MANIFEST_DIR"), "/../checkpoints/attack-2010-2p");
    let bot = format!("checkpoint:{ckpt}");
    let args = |rules: &'static str| {
        [
            "play",
            "--plain",
            "--rules",
            rules,
            "--players",
            "2",
            "--think-ms",
            "0",
            "--bot",
        ]
    };
    let mut a: Vec<&str> = args("classic").to_vec();
    a.push(&bot);
    let (code, out, err) = run(&a, "quit\n".into(), Duration::ZERO, Duration::from_secs(30));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("was trained for rules `attack-2010`, not `classic`"),
        "{err}"
    );
    assert!(out.is_empty(), "no game was shown: {}", tail(&out));
    // Its own rules at another table size: it plays, with a note.
    let mut a: Vec<&str> = args("attack-2010").to_vec();
    a[5] = "3";
    a.push(&bot);
    let (code, out, err) = run(&a, "quit\n".into(), Duration::ZERO, Duration::from_secs(30));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("trained with 2 players, playing with 3"),
        "{}",
        tail(&out)
    );
}

#[test]
fn a_variant_of_a_preset_gets_the_heuristic_not_the_presets_checkpoint() {
    let args = |rules: &str| {
        vec![
            "play".to_string(),
            "--plain".into(),
            "--rules".into(),
            rules.to_string(),
            "--players".into(),
            "2".into(),
            "--think-ms".into(),
            "0".into(),
        ]
    };
    let play = |rules: &str| {
        let a = args(rules);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run(&a, String::new(), Duration::ZERO, Duration::from_secs(30))
    };
    // checkpoints/bots.toml names `universal` for attack-2010 at 2 players
    // (it beats `attack-2010-2p` head to head), and the note says why.
    let (code, out, err) = play("attack-2010");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("bot: shipped checkpoint")
            && out.contains("universal (chosen in bots.toml: it beats attack-2010-2p"),
        "{}",
        tail(&out)
    );
    let (code, out, err) = play("classic");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bot: shipped checkpoint"), "{}", tail(&out));
    assert!(out.contains("classic-2p"), "{}", tail(&out));
    let (code, out, err) = play("flash");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bot: shipped checkpoint"), "{}", tail(&out));
    assert!(out.contains("flash-2p"), "{}", tail(&out));
    // No checkpoint ships for attack-modern alone: the network trained on
    // every preset (`checkpoints/universal`, `train --tables`) plays.
    let (code, out, err) = play("attack-modern");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("bot: shipped checkpoint") && out.contains("universal"),
        "{}",
        tail(&out)
    );
    // The preset's rules under another name: its checkpoint plays (as the
    // arena accepts it), and the note says why.
    let path = tmp("renamed.toml");
    std::fs::write(&path, "preset = \"attack-2010\"\nname = \"myattack\"\n").unwrap();
    let (code, out, err) = play(path.to_str().unwrap());
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("bot: shipped checkpoint")
            && out.contains("universal, for `attack-2010`: the same rules as `myattack`")
            && out.contains("chosen in bots.toml"),
        "{}",
        tail(&out)
    );
    // Same name (the file starts from the preset), other settings.
    let path = tmp("variant.toml");
    std::fs::write(&path, "preset = \"classic\"\n[options]\nhand_size = 5\n").unwrap();
    let (code, out, err) = play(path.to_str().unwrap());
    std::fs::remove_file(&path).ok();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bot: heuristic"), "{}", tail(&out));
    assert!(out.contains("options.hand_size"), "{}", tail(&out));
    // docs/play.md, where it says which bot plays, says so too.
    let docs =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/play.md"))
            .expect("docs/play.md");
    let choice = &docs[..docs.find("## Flags").expect("a Flags section")];
    assert!(
        choice.contains("the heuristic plays instead") && choice.contains("without these changes"),
        "docs/play.md does not describe the heuristic fallback: {choice}"
    );
}

#[test]
fn a_bots_toml_in_the_working_directory_chooses_the_bot_and_says_why() {
    // `./checkpoints/bots.toml` names a network (a copy of a shipped one)
    // for classic at 2 players, where a checkpoint of the table's own name
    // ships in the workspace: the file's choice plays, and the note says why.
    let dir = tmp("bots");
    let mine = dir.join("checkpoints").join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../checkpoints/universal");
    for f in ["model.bpk", "meta.json"] {
        std::fs::copy(shipped.join(f), mine.join(f)).unwrap();
    }
    let bots = dir.join("checkpoints").join("bots.toml");
    let play = |text: &str| {
        std::fs::write(&bots, text).unwrap();
        let out = Command::new(bin())
            .args(["play", "--plain", "--rules", "classic", "--players", "2"])
            .args(["--think-ms", "0"])
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let entry = "[[table]]\nrules = \"classic\"\nplayers = 2\nbot = \"mine\"\nwhy = \"a test\"\n";
    let (code, out, err) = play(entry);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("bot: shipped checkpoint checkpoints/mine (chosen in bots.toml: a test)"),
        "{}",
        tail(&out)
    );
    // A table the file does not list gets its own checkpoint.
    let (code, out, err) = play(&entry.replace("classic", "flash"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("classic-2p") && !out.contains("mine"),
        "{}",
        tail(&out)
    );
    // A bad file: one line naming it and the problem, exit code 2.
    let (code, _, err) = play("[[table]\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("checkpoints/bots.toml: line 1, column"),
        "{err}"
    );
    let (code, _, err) = play(&entry.replace("mine", "gone"));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("names `gone` for classic at 2 players"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_huge_turn_timer_is_refused_not_a_panic() {
    let transcript = tmp("timer.json");
    let _ = std::fs::remove_file(&transcript);
    for t in ["1e300", "1e20", "86401"] {
        let (code, out, err) = run(
            &[
                "play",
                "--plain",
                "--timer-secs",
                t,
                "--transcript",
                transcript.to_str().unwrap(),
            ],
            "quit\n".into(),
            Duration::ZERO,
            Duration::from_secs(30),
        );
        assert_eq!(code, 2, "{t}: {err}");
        assert!(
            err.contains("--timer-secs") && err.contains("out of range"),
            "{t}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{t}: {err}");
        assert!(out.is_empty(), "{t}: {}", tail(&out));
        assert!(!transcript.exists(), "{t}: nothing written");
    }
}

#[test]
fn a_transcript_never_replaces_a_file_that_is_not_one() {
    let notes = tmp("notes.txt");
    std::fs::write(&notes, "keep\n").unwrap();
    let args = |path: &PathBuf| {
        vec![
            "play".to_string(),
            "--plain".into(),
            "--rules".into(),
            "classic".into(),
            "--players".into(),
            "2".into(),
            "--think-ms".into(),
            "0".into(),
            "--transcript".into(),
            path.to_str().unwrap().to_string(),
        ]
    };
    let a = args(&notes);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, _out, err) = run(&a, "quit\n".into(), Duration::ZERO, Duration::from_secs(30));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a transcript"), "{err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep\n");
    let _ = std::fs::remove_file(&notes);
    // An earlier transcript is replaced by the new game's.
    let game = tmp("again.json");
    let _ = std::fs::remove_file(&game);
    let a = args(&game);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    for _ in 0..2 {
        let (code, _out, err) = run(&a, "quit\n".into(), Duration::ZERO, Duration::from_secs(30));
        assert_eq!(code, 0, "{err}");
        assert!(game.is_file());
    }
    let _ = std::fs::remove_file(&game);
}

#[test]
fn your_drawn_cards_are_named_and_the_bots_draws_are_not() {
    let mut input = String::new();
    for _ in 0..400 {
        input.push_str("draw\npass\n1\n");
    }
    let (code, out, err) = run(
        &[
            "play",
            "--plain",
            "--rules",
            "classic",
            "--players",
            "3",
            "--seed",
            "11",
            "--think-ms",
            "0",
            "--rounds",
            "1",
            "--bot",
            "heuristic",
        ],
        input,
        Duration::ZERO,
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{err}");
    let mine: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("You draw 1 card ("))
        .collect();
    assert!(!mine.is_empty(), "{}", tail(&out));
    for l in out
        .lines()
        .filter(|l| l.contains("Bot 1 draws") || l.contains("Bot 2 draws"))
    {
        assert!(!l.contains("card ("), "a bot's card leaked: {l}");
    }
}

#[test]
fn challenge_scoring_tells_you_when_you_are_eliminated() {
    // C-7 challenge: a total reaching the target eliminates; the others get
    // the points they hold, the round's winner none.
    let rules = tmp("challenge.toml");
    std::fs::write(
        &rules,
        "preset = \"classic\"\n[options]\nscoring = \"challenge\"\ntarget_score = 60\n",
    )
    .unwrap();
    let mut input = String::new();
    for _ in 0..1500 {
        input.push_str("1\n\n");
    }
    let (code, out, err) = run(
        &[
            "play",
            "--plain",
            "--rules",
            rules.to_str().unwrap(),
            "--players",
            "4",
            "--seed",
            "1",
            "--think-ms",
            "0",
            "--bot",
            "heuristic",
        ],
        input,
        Duration::ZERO,
        Duration::from_secs(60),
    );
    let _ = std::fs::remove_file(&rules);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "Bot 1 wins the round (no penalty): penalty points for the cards left — You +144"
        ),
        "{}",
        tail(&out)
    );
    assert!(
        !out.contains("wins the round: "),
        "no winner's points under challenge"
    );
    assert!(out.contains("Your total reaches 144 (target 60): you are eliminated (C-7)"));
    assert!(out.contains("Scores: You 144 (eliminated), "));
    assert!(out.contains("You are eliminated (C-7"));
    assert!(out.contains("press Enter to watch the next round"));
    assert!(out.contains("Two players remain"));
    assert!(
        out.contains("Match over: Bot 1 wins the match"),
        "{}",
        tail(&out)
    );
}

/// `play --plain` of 2-player Flash against the heuristic (seed 5), the bot
/// thinking `think_ms` a move and your turns timed at `timer_secs` (F-3).
fn flash_with_a_timer(think_ms: &'static str, timer_secs: &'static str) -> [&'static str; 14] {
    [
        "play",
        "--plain",
        "--rules",
        "flash",
        "--players",
        "2",
        "--seed",
        "5",
        "--bot",
        "heuristic",
        "--think-ms",
        think_ms,
        "--timer-secs",
        timer_secs,
    ]
}

#[test]
fn the_turn_timer_is_not_restarted_by_help_or_bad_input() {
    // F-3: the time is per turn. Lines that are not a move (help, nonsense)
    // every 0.3 s used to restart a 1 s timer, so it never ran out.
    let (mut child, mut stdin, out_t, _err_t) = spawn(&flash_with_a_timer("0", "1"));
    let start = Instant::now();
    let mut k = 0;
    while start.elapsed() < Duration::from_secs(5) {
        let line = if k % 2 == 0 { "help\n" } else { "nonsense\n" };
        if stdin.write_all(line.as_bytes()).is_err() {
            break;
        }
        k += 1;
        std::thread::sleep(Duration::from_millis(300));
    }
    drop(stdin);
    let limit = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        assert!(
            limit.elapsed() < Duration::from_secs(30),
            "no exit at end of input"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = out_t.join().unwrap();
    assert!(out.contains("You ran out of time (F-3)"), "{}", tail(&out));
}

#[test]
fn the_transcript_is_on_disk_while_the_game_waits_for_you() {
    // Killed while you think: every step so far is in the file (it used to
    // be written only at the start and at a round's end).
    let tr = tmp("killed.json");
    let _ = std::fs::remove_file(&tr);
    let (mut child, mut stdin, out_t, _err_t) = spawn(&[
        "play",
        "--plain",
        "--rules",
        "classic",
        "--players",
        "3",
        "--seed",
        "4",
        "--think-ms",
        "0",
        "--bot",
        "heuristic",
        "--transcript",
        tr.to_str().unwrap(),
    ]);
    stdin.write_all(b"1\n1\n").unwrap();
    let steps = |t: &serde_json::Value| {
        t["steps"]
            .as_array()
            .map_or(0, |s| s.iter().filter(|s| s["human"] == true).count())
    };
    let start = Instant::now();
    let t = loop {
        assert!(start.elapsed() < Duration::from_secs(30), "no steps saved");
        std::thread::sleep(Duration::from_millis(50));
        let Ok(text) = std::fs::read_to_string(&tr) else {
            continue;
        };
        // Whole JSON at every read: written through a temporary file and a rename.
        let t: serde_json::Value = serde_json::from_str(&text).expect("a whole transcript");
        if steps(&t) >= 2 {
            break t;
        }
    };
    // Still waiting for a third move (stdin is open): the file was written mid-game.
    assert!(
        child.try_wait().expect("wait").is_none(),
        "the game is still on"
    );
    assert!(t["match_winner"].is_null());
    let _ = child.kill();
    let _ = child.wait();
    drop(stdin);
    let _ = out_t.join();
    let _ = std::fs::remove_file(&tr);
}

#[test]
fn a_line_typed_after_a_time_out_does_not_answer_the_next_menu() {
    // F-3 in plain mode: your time runs out, you type `1` for the menu that
    // is gone while the bot thinks; the next menu must not take it as your
    // choice (it used to play its first item).
    let mut child = Command::new(bin())
        .args(flash_with_a_timer("1500", "0.5"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn uno-attack");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut all = String::new();
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            all.push_str(&line);
            all.push('\n');
            let _ = tx.send(line);
        }
        all
    });
    let start = Instant::now();
    let mut typed = false;
    while start.elapsed() < Duration::from_secs(30) {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) if !typed && line.contains("You ran out of time (F-3)") => {
                stdin.write_all(b"1\n").unwrap();
                typed = true;
            }
            Ok(line) if line.contains("Ignored `1`") => break,
            Ok(_) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    drop(stdin);
    let limit = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if limit.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = reader.join().unwrap();
    assert!(typed, "no time-out seen: {}", tail(&out));
    let after = &out[out.find("You ran out of time (F-3)").unwrap()..];
    assert!(
        after.contains("Ignored `1`: typed after your time ran out"),
        "{}",
        tail(&out)
    );
    // The line was not taken as a move: no move of yours follows the time-out.
    assert!(!after.contains("You played"), "{}", tail(&out));
}

#[cfg(unix)]
#[test]
fn a_pipe_is_neither_replaced_by_a_transcript_nor_replayed() {
    use std::os::unix::fs::FileTypeExt;
    let fifo = tmp("pipe");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    // `play` writes its transcript by renaming a new file over the path: a
    // pipe or device there (/dev/null, as root) used to be replaced.
    let (code, _out, err) = quit_with_transcript(fifo.to_str().unwrap());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a regular file"), "{err}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // `replay` of a pipe used to wait forever for it to end.
    let (code, _out, err) = run(
        &["replay", "--plain", fifo.to_str().unwrap()],
        String::new(),
        Duration::ZERO,
        Duration::from_secs(30),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    let _ = std::fs::remove_file(&fifo);
}

/// `play --plain` of attack-2010, 3 players, seed 2: your turn first, with
/// a menu of four (Y3, Y9, G4, draw).
const SEED_2: [&str; 10] = [
    "play",
    "--plain",
    "--rules",
    "attack-2010",
    "--players",
    "3",
    "--seed",
    "2",
    "--think-ms",
    "0",
];

#[test]
fn typed_control_characters_are_shown_as_escapes_not_sent_to_the_terminal() {
    // An arrow key in a line-mode terminal types ESC [ A; echoed back as it
    // was, "Not understood: `…`" moved the cursor (or retitled the window).
    let input = "\x1b[A\n\x1b]0;retitled\x07\x1b[2J\nquit\n".to_string();
    let (code, out, err) = run(&SEED_2, input, Duration::ZERO, Duration::from_secs(30));
    assert_eq!(code, 0, "stderr: {err}");
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(
        out.contains("Not understood: `\\u{1b}[A`"),
        "{}",
        tail(&out)
    );
    assert!(
        out.contains("Not understood: `\\u{1b}]0;retitled\\u{7}\\u{1b}[2J`"),
        "{}",
        tail(&out)
    );
    // A long line is shown cut.
    let input = format!("{}\nquit\n", "z".repeat(3000));
    let (_, out, _) = run(&SEED_2, input, Duration::ZERO, Duration::from_secs(30));
    assert!(
        out.contains(&format!("Not understood: `{}…`", "z".repeat(40))),
        "{}",
        tail(&out)
    );
}

#[test]
fn a_signed_number_is_a_menu_number_not_an_action_id() {
    // `+1` went to the action parser, which read it as action id 1 (play:Y0).
    let input = "-1\n+99\n+1\nquit\n".to_string();
    let (code, out, err) = run(&SEED_2, input, Duration::ZERO, Duration::from_secs(30));
    assert_eq!(code, 0, "stderr: {err}");
    assert!(
        out.contains("No item -1 in the menu (1..4)."),
        "{}",
        tail(&out)
    );
    assert!(
        out.contains("No item +99 in the menu (1..4)."),
        "{}",
        tail(&out)
    );
    assert!(!out.contains("Refused"), "{}", tail(&out));
    assert!(out.contains("You played Yellow 3"), "{}", tail(&out));
}

#[test]
fn an_endless_line_is_refused_without_filling_memory() {
    // /dev/zero has no line break: the line was read into memory until the
    // machine ran out (about 500 MB a second).
    let (Ok(zero), true) = (
        std::fs::File::open("/dev/zero"),
        std::path::Path::new("/proc/self/status").exists(),
    ) else {
        eprintln!("note: no /dev/zero or /proc; skipping");
        return;
    };
    let mut child = Command::new(bin())
        .args(SEED_2)
        .stdin(Stdio::from(zero))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn uno-attack");
    let mut stdout = child.stdout.take().expect("stdout");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    std::thread::sleep(Duration::from_millis(1500));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/<pid>/status");
    assert!(kb < 200_000, "{kb} kB after 1.5 s of /dev/zero");
    let out = out.join().unwrap();
    assert!(
        out.contains("Ignored a line longer than 4096 bytes: not a command."),
        "{}",
        tail(&out)
    );
    // A line of the longest length is still read, and the next one after a
    // line too long.
    let input = format!("{}\n{}\n-1\nquit\n", "y".repeat(4096), "w".repeat(5000));
    let (code, out, err) = run(&SEED_2, input, Duration::ZERO, Duration::from_secs(30));
    assert_eq!(code, 0, "stderr: {err}");
    assert!(
        out.contains(&format!("`{}…`", "y".repeat(40))),
        "{}",
        tail(&out)
    );
    assert!(
        out.contains("Ignored a line longer than 4096"),
        "{}",
        tail(&out)
    );
    assert!(out.contains("No item -1 in the menu"), "{}", tail(&out));
}

#[test]
fn seeded_random_input_is_refused_cleanly_in_every_preset() {
    // A short fuzz: lines of random bytes (invalid UTF-8, control
    // characters, escape sequences), numbers in and out of range, signed
    // numbers, commands, long lines; the end of input in mid-line. Every
    // preset plays on to the end of input and quits with code 0, and
    // nothing typed reaches the terminal as a control character.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let words: &[&[u8]] = &[
        b"draw",
        b"pass",
        b"uno",
        b"no-uno",
        b"challenge",
        b"accept",
        b"colour:red",
        b"colour:purple",
        b"target:+1",
        b"target:+9",
        b"play:R5",
        b"wild",
        b"look",
        b"?",
        b"next",
        b"",
        b" 1 ",
        b"+1",
        b"-1",
        b"+0",
        b"0",
        b"007",
        b"99999999999999999999999",
        b"\x1b[A",
        b"\x1b]0;t\x07",
        b"\x9b2J",
        b"\xff\xfe",
        b"\x00",
        b"\r",
        b"1\r",
    ];
    for (i, rules) in [
        "attack-1999",
        "attack-2010",
        "attack-modern",
        "flash",
        "classic",
    ]
    .into_iter()
    .enumerate()
    {
        let mut input = Vec::new();
        for _ in 0..250 {
            match next(10) {
                0..=3 => input.extend_from_slice(format!("{}", next(12)).as_bytes()),
                4..=6 => input.extend_from_slice(words[next(words.len() as u64) as usize]),
                7 | 8 => input.extend(
                    (0..1 + next(60))
                        .map(|_| next(256) as u8)
                        .filter(|&b| b != b'\n'),
                ),
                _ => input.extend(std::iter::repeat_n(b'7', 1 + next(9000) as usize)),
            }
            input.push(b'\n');
        }
        input.extend_from_slice(b"dra");
        let players = ["2", "4", "10"][i % 3];
        let seed = (i + 1).to_string();
        let args = [
            "play",
            "--plain",
            "--rules",
            rules,
            "--players",
            players,
            "--seed",
            &seed,
            "--think-ms",
            "0",
            "--bot",
            "heuristic",
        ];
        let (code, out, err) = run_bytes(&args, input, Duration::ZERO, Duration::from_secs(60));
        assert_eq!(code, 0, "{rules}: stderr: {err}\n{}", tail(&out));
        assert!(
            out.contains("End of input: quitting.") || out.contains("Match over"),
            "{rules}: {}",
            tail(&out)
        );
        let bad = out.chars().find(|&c| c.is_control() && c != '\n');
        assert!(
            bad.is_none(),
            "{rules}: {bad:?} in the output: {}",
            tail(&out)
        );
    }
}
