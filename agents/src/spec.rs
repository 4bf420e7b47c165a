//! Agent specs: the strings that name agents (`random`, `random-play`, `first-legal`,
//! `greedy`, `heuristic`, `heuristic:key=value,...`, `search[:samples=N,z=Z,base=SPEC]`,
//! `checkpoint:<path>`),
//! and [`build`], which turns a spec into a playing agent. A library user's own
//! agent enters the arena, the league and the single-agent env as
//! [`AgentSpec::Custom`] (a name and a function that builds it from a seed).

use crate::agent::Agent;
use crate::error::AgentError;
use crate::heuristic::{Heuristic, HeuristicParams};
use crate::search::{Search, SearchParams};
use crate::simple::{FirstLegal, Greedy, RandomAgent, RandomPlay};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::OnceLock;
use uno_env::Game;

/// A named agent, with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// Uniform over the legal actions.
    Random,
    /// Uniform over playable cards; draws only when nothing is playable.
    RandomPlay,
    /// The lowest legal action id.
    FirstLegal,
    /// Dump the highest-scoring playable card.
    Greedy,
    /// The hand-written expert with these parameters.
    Heuristic(HeuristicParams),
    /// Determinized heuristic rollouts on top of a base agent ([`crate::search`]).
    Search(SearchParams),
    /// A neural agent loaded from a checkpoint directory (built by the registered hook).
    Checkpoint(PathBuf),
    /// An agent of the caller's own (no spec string names it).
    Custom(CustomAgent),
}

/// Builds one instance of a custom agent from its seed.
pub type AgentFactory = dyn Fn(u64) -> Box<dyn Agent + Send> + Send + Sync;

/// A caller's own [`Agent`] as a spec: a display name and a function that
/// builds one instance from a seed (the arena builds one per worker thread
/// and reseeds it with [`Agent::reset`] every game).
///
/// The arena, the league and [`crate::SoloVecEnv`] build their instances
/// with seed 0 and give each game (each episode) its seed through
/// [`Agent::reset`]: an agent that draws random numbers must reseed its
/// generator there, or it draws the same numbers in every game.
///
/// ```
/// use uno_agents::{Agent, AgentSpec, ArenaConfig, CustomAgent, run_arena};
/// use uno_env::{Game, Rules, State};
///
/// /// Plays the lowest legal action id: a card when it has one (card ids come
/// /// before `draw`, 79).
/// struct Lowest;
/// impl Agent for Lowest {
///     fn name(&self) -> String { "lowest".into() }
///     fn act(&mut self, game: &Game, state: &State, _seat: usize) -> usize {
///         game.legal_mask(state).trailing_zeros() as usize
///     }
/// }
///
/// let cfg = ArenaConfig {
///     rules: Rules::preset("classic").unwrap(),
///     players: 2,
///     agents: vec![AgentSpec::Custom(CustomAgent::new("lowest", |_seed| Box::new(Lowest))), AgentSpec::Random],
///     games: 100,
///     seed: 1,
///     threads: 1,
/// };
/// let report = run_arena(&cfg, None).unwrap();
/// assert_eq!(report.agents[0].spec, "lowest");
/// assert_eq!(report.truncated, 0);
/// ```
#[derive(Clone)]
pub struct CustomAgent {
    name: String,
    make: std::sync::Arc<AgentFactory>,
}

impl CustomAgent {
    /// A custom agent named `name` (as reports show it), built by `make`.
    pub fn new(
        name: impl Into<String>,
        make: impl Fn(u64) -> Box<dyn Agent + Send> + Send + Sync + 'static,
    ) -> Self {
        CustomAgent {
            name: name.into(),
            make: std::sync::Arc::new(make),
        }
    }

    /// Its display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One instance, seeded.
    pub fn build(&self, seed: u64) -> Box<dyn Agent + Send> {
        (self.make)(seed)
    }
}

impl fmt::Debug for CustomAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomAgent")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Two custom agents are equal when they share their name and their
/// builder (clones of one `CustomAgent`).
impl PartialEq for CustomAgent {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && std::sync::Arc::ptr_eq(&self.make, &other.make)
    }
}

impl AgentSpec {
    /// Whether the agent remembers anything between decisions (the
    /// heuristic remembers its last one, to judge a Wild Draw Four
    /// challenge; a search's base may), so one instance must not serve
    /// several games at once. The others decide from the state alone.
    pub fn remembers(&self) -> bool {
        // A custom agent may remember: one instance per game, to be safe.
        matches!(
            self,
            AgentSpec::Heuristic(_) | AgentSpec::Search(_) | AgentSpec::Custom(_)
        )
    }

    /// The checkpoint directories the spec plays from: a `checkpoint:` spec's
    /// own, or those of a `search:` spec's base (what a caller checks against
    /// the game before playing).
    pub fn checkpoints(&self) -> Vec<PathBuf> {
        fn walk(spec: &AgentSpec, depth: usize) -> Vec<PathBuf> {
            match spec {
                AgentSpec::Checkpoint(dir) => vec![dir.clone()],
                AgentSpec::Search(p) if depth < 8 => parse_spec(&p.base)
                    .map(|b| walk(&b, depth + 1))
                    .unwrap_or_default(),
                _ => Vec::new(),
            }
        }
        walk(self, 0)
    }
}

/// Builds a neural agent from a checkpoint path and a seed (provided by the neural module).
pub type CheckpointBuilder = fn(&Path, u64) -> Result<Box<dyn Agent + Send>, AgentError>;

static CHECKPOINT_BUILDER: OnceLock<CheckpointBuilder> = OnceLock::new();

/// Registers the builder for `checkpoint:<path>` specs; returns false if one was already registered.
pub fn register_checkpoint_builder(builder: CheckpointBuilder) -> bool {
    CHECKPOINT_BUILDER.set(builder).is_ok()
}

/// Parses an agent spec string (see the module docs).
pub fn parse_spec(s: &str) -> Result<AgentSpec, AgentError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(AgentError::EmptySpec);
    }
    let (head, opts) = match s.split_once(':') {
        Some((h, o)) => (h.trim(), Some(o.trim())),
        None => (s, None),
    };
    let no_opts = |spec: AgentSpec| match opts {
        None => Ok(spec),
        Some(o) => Err(AgentError::UnexpectedOptions(
            head.to_string(),
            o.to_string(),
        )),
    };
    match head.to_ascii_lowercase().as_str() {
        "random" => no_opts(AgentSpec::Random),
        "random-play" => no_opts(AgentSpec::RandomPlay),
        "first-legal" | "first" => no_opts(AgentSpec::FirstLegal),
        "greedy" => no_opts(AgentSpec::Greedy),
        "heuristic" => Ok(AgentSpec::Heuristic(parse_overrides(opts.unwrap_or(""))?)),
        "search" => {
            // Checked now, as a heuristic's values are: a spec that parses builds.
            let p: SearchParams = parse_overrides(opts.unwrap_or(""))?;
            p.check()?;
            Ok(AgentSpec::Search(p))
        }
        "checkpoint" => match opts {
            Some(p) if !p.strip_suffix("?sample").unwrap_or(p).is_empty() => {
                Ok(AgentSpec::Checkpoint(PathBuf::from(p)))
            }
            _ => Err(AgentError::MissingCheckpointPath),
        },
        _ => Err(AgentError::UnknownAgent(s.to_string())),
    }
}

/// Parses a comma-separated list of agent specs, such as the arena's
/// `--agents`. An item of the form `key=value` (no `:` before the `=`)
/// continues the previous spec's options, so
/// `heuristic:danger_cards=1,wild_penalty=2,random` is two agents.
pub fn parse_spec_list(s: &str) -> Result<Vec<AgentSpec>, AgentError> {
    let mut items: Vec<String> = Vec::new();
    for item in s.split(',').map(str::trim) {
        let option = item
            .split_once('=')
            .is_some_and(|(key, _)| !key.contains(':'));
        match items.last_mut() {
            Some(last) if option && last.contains(':') => {
                last.push(',');
                last.push_str(item);
            }
            _ => items.push(item.to_string()),
        }
    }
    items.iter().map(|i| parse_spec(i)).collect()
}

/// Applies `key=value,...` overrides to default parameters (heuristic or search).
fn parse_overrides<P>(opts: &str) -> Result<P, AgentError>
where
    P: Default + serde::Serialize + serde::de::DeserializeOwned,
{
    let mut value = serde_json::to_value(P::default()).expect("params serialize");
    let map = value.as_object_mut().expect("params are a JSON object");
    let mut given: Vec<&str> = Vec::new();
    // `heuristic:` alone means the defaults; an empty item in a list is a typo.
    let opts = opts.trim();
    let items = (!opts.is_empty()).then(|| opts.split(',').map(str::trim));
    for item in items.into_iter().flatten() {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| AgentError::BadOverride(item.to_string()))?;
        let (k, v) = (k.trim(), v.trim());
        if given.contains(&k) {
            return Err(AgentError::BadParam {
                key: k.to_string(),
                reason: "given twice".into(),
            });
        }
        given.push(k);
        let Some(old) = map.get(k) else {
            let known: Vec<&String> = map.keys().collect();
            // After `base=`, a comma ends the base's options (see `search`).
            let hint = if given.contains(&"base") {
                "; a search's base takes at most one option of its own (a comma starts the next search option)"
            } else {
                ""
            };
            return Err(AgentError::BadParam {
                key: k.to_string(),
                reason: format!("unknown parameter (known: {known:?}){hint}"),
            });
        };
        let new = match old {
            serde_json::Value::Bool(_) => v.parse::<bool>().map(serde_json::Value::Bool).ok(),
            // Whole numbers as the CLI's counts take them: `1000` or `1e3`.
            serde_json::Value::Number(n) if n.is_u64() => v
                .parse::<u64>()
                .ok()
                .or_else(|| {
                    let x = v.parse::<f64>().ok()?;
                    (x >= 0.0 && x.fract() == 0.0 && x < 2f64.powi(64)).then_some(x as u64)
                })
                .map(Into::into),
            serde_json::Value::String(_) => Some(serde_json::Value::String(v.to_string())),
            serde_json::Value::Number(_) => v
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .and_then(serde_json::Number::from_f64)
                .map(serde_json::Value::Number),
            _ => None,
        };
        let Some(new) = new else {
            let want = match old {
                serde_json::Value::Bool(_) => "true or false",
                serde_json::Value::Number(n) if n.is_u64() => {
                    if v.bytes().all(|b| b.is_ascii_digit()) && !v.is_empty() {
                        "an integer below 2^64"
                    } else {
                        "a non-negative integer"
                    }
                }
                _ if v.parse::<f64>().is_ok() => "a finite number",
                _ => "a number",
            };
            return Err(AgentError::BadParam {
                key: k.to_string(),
                reason: format!("`{v}` is not {want}"),
            });
        };
        map.insert(k.to_string(), new);
    }
    serde_json::from_value(value).map_err(|e| AgentError::BadParam {
        key: "?".into(),
        reason: e.to_string(),
    })
}

impl FromStr for AgentSpec {
    type Err = AgentError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_spec(s)
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::RandomPlay => f.write_str("random-play"),
            AgentSpec::FirstLegal => f.write_str("first-legal"),
            AgentSpec::Greedy => f.write_str("greedy"),
            AgentSpec::Heuristic(p) => write_overrides(f, "heuristic", p),
            AgentSpec::Search(p) => write_overrides(f, "search", p),
            AgentSpec::Checkpoint(p) => write!(f, "checkpoint:{}", p.display()),
            AgentSpec::Custom(c) => f.write_str(&c.name),
        }
    }
}

/// Writes `name` and the `:key=value,…` parameters that differ from the defaults.
fn write_overrides<P>(f: &mut fmt::Formatter<'_>, name: &str, p: &P) -> fmt::Result
where
    P: Default + serde::Serialize,
{
    f.write_str(name)?;
    let def = serde_json::to_value(P::default()).unwrap_or_default();
    let cur = serde_json::to_value(p).unwrap_or_default();
    let mut sep = ':';
    if let (Some(d), Some(c)) = (def.as_object(), cur.as_object()) {
        for (k, v) in c {
            if d.get(k) != Some(v) {
                match v {
                    serde_json::Value::String(s) => write!(f, "{sep}{k}={s}")?,
                    v => write!(f, "{sep}{k}={v}")?,
                }
                sep = ',';
            }
        }
    }
    Ok(())
}

/// Builds the agent a spec names, seeded with `seed`.
pub fn build(spec: &AgentSpec, seed: u64) -> Result<Box<dyn Agent + Send>, AgentError> {
    Ok(match spec {
        AgentSpec::Random => Box::new(RandomAgent::new(seed)),
        AgentSpec::RandomPlay => Box::new(RandomPlay::new(seed)),
        AgentSpec::FirstLegal => Box::new(FirstLegal),
        AgentSpec::Greedy => Box::new(Greedy),
        AgentSpec::Heuristic(p) => {
            p.check()?;
            Box::new(Heuristic::new(p.clone(), seed))
        }
        AgentSpec::Search(p) => Box::new(Search::new(p.clone(), seed)?),
        AgentSpec::Custom(c) => c.build(seed),
        AgentSpec::Checkpoint(path) => {
            // With the `neural` feature the network agent is the builder,
            // unless the caller registered another first.
            #[cfg(feature = "neural")]
            crate::neural::register();
            match CHECKPOINT_BUILDER.get() {
                Some(b) => b(path, seed)?,
                None => return Err(AgentError::NeuralUnavailable(path.clone())),
            }
        }
    })
}

/// Checks every checkpoint the specs play from against the game: an error
/// for one trained for other rules, notes for another table size or a
/// variant of the preset.
#[cfg(feature = "neural")]
pub(crate) fn check_checkpoints(
    specs: &[AgentSpec],
    game: &Game,
) -> Result<Vec<String>, AgentError> {
    let dirs: Vec<_> = specs.iter().flat_map(AgentSpec::checkpoints).collect();
    crate::neural::check_compatible_all(&dirs, game).map_err(|(path, e)| AgentError::Checkpoint {
        path,
        message: e.to_string(),
    })
}

/// Without the neural agent there are no checkpoints to check (building one fails).
#[cfg(not(feature = "neural"))]
pub(crate) fn check_checkpoints(
    _specs: &[AgentSpec],
    _game: &Game,
) -> Result<Vec<String>, AgentError> {
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in [
            "random",
            "first-legal",
            "greedy",
            "heuristic",
            "search",
            "search:samples=8",
            "search:base=heuristic:danger_cards=1,samples=8",
            "checkpoint:runs/a",
        ] {
            assert_eq!(parse_spec(s).unwrap().to_string(), s);
        }
        let h = parse_spec("heuristic:danger_cards=1,wild_penalty=2.5,stack=false").unwrap();
        let AgentSpec::Heuristic(p) = &h else {
            panic!()
        };
        assert_eq!(p.danger_cards, 1);
        assert_eq!(p.wild_penalty, 2.5);
        assert!(!p.stack);
        assert_eq!(parse_spec(&h.to_string()).unwrap(), h);
    }

    #[test]
    fn only_the_heuristic_and_search_remember() {
        for (s, remembers) in [
            ("random", false),
            ("random-play", false),
            ("first-legal", false),
            ("greedy", false),
            ("checkpoint:runs/a", false),
            ("heuristic", true),
            ("search:samples=2", true),
        ] {
            assert_eq!(parse_spec(s).unwrap().remembers(), remembers, "{s}");
        }
    }

    #[test]
    fn lists_keep_multi_option_specs_together() {
        let v = parse_spec_list(
            "heuristic:danger_cards=1,wild_penalty=2.5, random,search:samples=8,base=checkpoint:runs/x=1,greedy",
        )
        .unwrap();
        assert_eq!(v.len(), 4, "{v:?}");
        let AgentSpec::Heuristic(p) = &v[0] else {
            panic!("{v:?}")
        };
        assert_eq!((p.danger_cards, p.wild_penalty), (1, 2.5));
        assert_eq!(v[1], AgentSpec::Random);
        let AgentSpec::Search(p) = &v[2] else {
            panic!("{v:?}")
        };
        assert_eq!((p.samples, p.base.as_str()), (8, "checkpoint:runs/x=1"));
        assert_eq!(v[3], AgentSpec::Greedy);
        // An option with no spec before it is an unknown agent, not silently dropped.
        assert!(parse_spec_list("samples=8,random").is_err());
        // A key given twice is refused, not silently overridden.
        let e = parse_spec("heuristic:danger_cards=1,danger_cards=2").unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        assert!(parse_spec_list("random,,greedy").is_err());
    }
}
