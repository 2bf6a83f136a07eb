//! A row of the summary table: what the sections report and `report` renders.

/// One line of the summary table.
pub(super) struct Row {
    pub(super) key: &'static str,
    pub(super) what: &'static str,
    pub(super) value: Option<f64>,
    pub(super) unit: &'static str,
    /// Target: (≤ or ≥, bound).
    pub(super) target: Option<(&'static str, f64)>,
    pub(super) detail: String,
}

impl Row {
    pub(super) fn verdict(&self) -> &'static str {
        match (self.value, self.target) {
            (None, _) => "n/a",
            (_, None) => "",
            (Some(v), Some(("≤", t))) if v <= t => "met",
            (Some(v), Some(("≥", t))) if v >= t => "met",
            _ => "MISSED",
        }
    }
}
