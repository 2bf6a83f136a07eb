//! Argument and output types of the demo server's tools.
//!
//! The JSON schemas the clients see are derived from these types (schemars 1.x through
//! rmcp), so the shapes here are chosen to exercise a code generator: nested objects,
//! string enums behind `$ref`, optional and nullable fields, arrays of objects, maps,
//! numeric bounds and defaults. Doc comments become `description`s.

use std::collections::BTreeMap;

use rmcp::schemars::{self, JsonSchema};
use serde::{Deserialize, Serialize};

/// Upper bound of `echo.repeat`.
pub const MAX_REPEAT: u32 = 10_000;
/// Upper bound of `long_task.steps`.
pub const MAX_STEPS: u32 = 10_000;
/// Upper bound of `huge.mib`.
pub const MAX_HUGE_MIB: u32 = 1024;

// ---------------------------------------------------------------------------------------
// Demo tools
// ---------------------------------------------------------------------------------------

/// Arguments of `echo`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    /// The text to send back.
    pub message: String,
    /// How many times to repeat the message, joined by single spaces (0 gives an empty text).
    #[serde(default = "default_repeat")]
    #[schemars(range(max = 10000))]
    pub repeat: u32,
}

fn default_repeat() -> u32 {
    1
}

/// Arguments of `add`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// The left-hand operand.
    pub a: f64,
    /// The right-hand operand.
    pub b: f64,
}

/// A repository, identified by owner and name.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepositoryRef {
    /// Account or organisation that owns the repository.
    #[schemars(length(min = 1))]
    pub owner: String,
    /// Repository name without the owner.
    #[schemars(length(min = 1))]
    pub name: String,
}

/// Triage priority of an issue.
// The variants carry no doc comments on purpose: schemars then emits a plain
// `"enum": [...]`; documented variants become a `oneOf` of `const`s (see
// `TemperatureUnit`). Both shapes are common in real servers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Priority {
    Low,
    #[default]
    Medium,
    High,
}

impl Priority {
    /// The wire name of the priority.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Medium => "medium",
            Priority::High => "high",
        }
    }
}

/// A label attached to an issue.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Label {
    /// Label name, e.g. `bug`.
    #[schemars(length(min = 1, max = 50))]
    pub name: String,
    /// Six-digit hex colour without `#`; `null` or absent for the default colour.
    #[serde(default)]
    #[schemars(regex(pattern = r"^[0-9a-fA-F]{6}$"))]
    pub color: Option<String>,
}

/// A reference to another issue.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IssueRef {
    /// Repository of the referenced issue.
    pub repository: RepositoryRef,
    /// Issue number within that repository.
    #[schemars(range(min = 1))]
    pub number: u64,
}

/// Arguments of `create_issue`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateIssueArgs {
    /// Repository in which to open the issue.
    pub repository: RepositoryRef,
    /// One-line issue title.
    #[schemars(length(min = 1, max = 256))]
    pub title: String,
    /// Markdown body; `null` or absent for an empty body.
    #[serde(default)]
    pub body: Option<String>,
    /// Triage priority.
    #[serde(default)]
    pub priority: Priority,
    /// Labels to attach; created on the fly when missing.
    #[serde(default)]
    pub labels: Vec<Label>,
    /// Login of the user to assign; `null` leaves the issue unassigned.
    #[serde(default)]
    pub assignee: Option<String>,
    /// Milestone number; `null` for none.
    #[serde(default)]
    pub milestone: Option<u32>,
    /// Due date as an ISO 8601 calendar date (`YYYY-MM-DD`).
    #[serde(default)]
    #[schemars(extend("format" = "date"))]
    pub due_date: Option<String>,
    /// Parent issue for sub-issues; `null` for a top-level issue.
    #[serde(default)]
    pub parent: Option<IssueRef>,
    /// Free-form key/value metadata stored with the issue.
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    /// Open the issue as a draft.
    #[serde(default)]
    pub draft: bool,
}

/// Temperature unit system.
// Documented variants: a `oneOf` of `const`s with descriptions in the schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TemperatureUnit {
    /// Degrees Celsius.
    #[default]
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// Arguments of `get_weather`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetWeatherArgs {
    /// City name, e.g. `Berlin`.
    #[schemars(length(min = 1))]
    pub city: String,
    /// Unit of all temperatures in the report.
    #[serde(default)]
    pub units: TemperatureUnit,
    /// Number of forecast days to include.
    #[serde(default = "default_days")]
    #[schemars(range(min = 0, max = 7))]
    pub days: u8,
}

fn default_days() -> u8 {
    3
}

/// Sky conditions.
// Undocumented variants: a plain string `enum` in the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Conditions {
    Sunny,
    PartlyCloudy,
    Cloudy,
    Rain,
    Snow,
    Thunderstorm,
}

impl Conditions {
    /// All conditions, in schema order.
    pub const ALL: [Conditions; 6] = [
        Conditions::Sunny,
        Conditions::PartlyCloudy,
        Conditions::Cloudy,
        Conditions::Rain,
        Conditions::Snow,
        Conditions::Thunderstorm,
    ];
}

/// Wind at the surface.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Wind {
    /// Wind speed in km/h.
    pub speed_kmh: f64,
    /// Direction the wind comes from, in degrees (0 = north, 90 = east).
    pub direction_deg: u16,
}

/// Weather right now.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CurrentWeather {
    /// Air temperature in the report's unit.
    pub temperature: f64,
    /// Sky conditions.
    pub conditions: Conditions,
    /// Relative humidity in percent.
    pub humidity_percent: u8,
    /// Surface wind.
    pub wind: Wind,
}

/// Forecast for one day.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DailyForecast {
    /// Days from today (1 = tomorrow).
    pub day: u8,
    /// Daily high in the report's unit.
    pub high: f64,
    /// Daily low in the report's unit.
    pub low: f64,
    /// Prevailing conditions.
    pub conditions: Conditions,
    /// Expected precipitation in millimetres, `null` when dry.
    pub precipitation_mm: Option<f64>,
}

/// Structured result of `get_weather`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WeatherReport {
    /// The city, as requested.
    pub city: String,
    /// Unit of all temperatures in this report.
    pub units: TemperatureUnit,
    /// Current weather.
    pub current: CurrentWeather,
    /// Forecast, one entry per requested day.
    pub forecast: Vec<DailyForecast>,
    /// Active weather alert, `null` when there is none.
    pub alert: Option<String>,
}

/// Arguments of `long_task`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LongTaskArgs {
    /// Number of steps; one progress notification is sent per step.
    #[schemars(range(min = 1, max = 10000))]
    pub steps: u32,
    /// Delay before each step, in milliseconds.
    #[serde(default = "default_step_delay")]
    #[schemars(range(max = 60000))]
    pub delay_ms: u64,
}

fn default_step_delay() -> u64 {
    10
}

/// Arguments of `fail`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailArgs {
    /// The error message to return as the tool's (error) result.
    pub message: String,
}

/// One record of an `echo_structured` payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Record id.
    pub id: u64,
    /// Display name.
    pub name: String,
    /// Free-form tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Whether the record is active.
    #[serde(default)]
    pub active: bool,
    /// Optional note, `null` when absent.
    #[serde(default)]
    pub note: Option<String>,
}

/// Arguments of `echo_structured`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EchoStructuredArgs {
    /// Records to send back unchanged.
    pub payload: Vec<Record>,
}

/// Structured result of `echo_structured`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EchoStructuredOutput {
    /// The records, unchanged.
    pub payload: Vec<Record>,
    /// Number of records.
    pub count: u64,
}

// ---------------------------------------------------------------------------------------
// Fault tools (`--faults`)
// ---------------------------------------------------------------------------------------

/// Arguments of `crash`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CrashArgs {
    /// Exit status of the process.
    #[serde(default = "default_crash_code")]
    #[schemars(range(min = 1, max = 255))]
    pub code: u8,
}

fn default_crash_code() -> u8 {
    3
}

/// Arguments of `garbage`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GarbageArgs {
    /// Number of non-JSON lines to write to stdout before the answer.
    #[serde(default = "default_garbage_lines")]
    #[schemars(range(min = 1, max = 1000))]
    pub lines: u32,
}

fn default_garbage_lines() -> u32 {
    3
}

/// Arguments of `huge`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HugeArgs {
    /// Size of the text result in MiB (1 MiB = 1048576 bytes).
    #[serde(default = "default_huge_mib")]
    #[schemars(range(max = 1024))]
    pub mib: u32,
}

fn default_huge_mib() -> u32 {
    16
}

/// Arguments of `region`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegionArgs {
    /// A region name, mirrored into the `Mcp-Param-Region` header.
    #[schemars(extend("x-mcp-header" = "Region"))]
    pub region: String,
}

/// Arguments of `bad_header`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BadHeaderArgs {
    /// A number, annotated (invalidly: numbers cannot be mirrored) with `x-mcp-header`.
    #[schemars(extend("x-mcp-header" = "Score"))]
    pub score: f64,
}

/// Arguments of `append_note`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AppendNoteArgs {
    /// The note's topic (the resource `demo://notes/{topic}`).
    pub topic: String,
    /// The line to add at the note's end.
    pub line: String,
}

/// Arguments of `log`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogArgs {
    /// The message to log.
    pub text: String,
}

/// Arguments of `slow_sum`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlowSumArgs {
    /// Left operand.
    pub a: i64,
    /// Right operand.
    pub b: i64,
    /// How long the sum takes, in milliseconds.
    #[schemars(range(max = 600000))]
    pub ms: u64,
}

/// Arguments of `sleep`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SleepArgs {
    /// How long to sleep before answering, in milliseconds.
    #[schemars(range(max = 3600000))]
    pub ms: u64,
}
