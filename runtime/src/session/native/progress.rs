//! Progress delivery: routes `notifications/progress` to the call that asked for it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use rmcp::model::{ProgressNotificationParam, ProgressToken};

use super::{Progress, ProgressFn};

/// Routes `notifications/progress` to the call that asked for it.
#[derive(Default)]
pub(in crate::session) struct ProgressRouter {
    pub(in crate::session) inner: Mutex<RouterState>,
}

#[derive(Default)]
pub(in crate::session) struct RouterState {
    pub(in crate::session) subscribers: HashMap<ProgressToken, ProgressFn>,
    /// Updates that arrived before their call registered (bounded).
    pub(in crate::session) early: Vec<(ProgressToken, Progress)>,
    /// When progress last arrived, per token: a call's idle deadline counts from it
    /// (removed when the call ends; bounded).
    pub(in crate::session) last_progress: HashMap<ProgressToken, Instant>,
}

pub(in crate::session) const LAST_PROGRESS_MAX: usize = 4096;

pub(in crate::session) const EARLY_PROGRESS_MAX: usize = 256;

impl ProgressRouter {
    pub(in crate::session) fn subscribe(&self, token: ProgressToken, f: ProgressFn) {
        let early: Vec<Progress> = match self.inner.lock() {
            Ok(mut st) => {
                let mut mine = Vec::new();
                st.early.retain(|(t, p)| {
                    if *t == token {
                        mine.push(p.clone());
                        false
                    } else {
                        true
                    }
                });
                st.subscribers.insert(token, f.clone());
                mine
            }
            Err(_) => Vec::new(),
        };
        for p in early {
            f(p);
        }
    }

    pub(in crate::session) fn unsubscribe(&self, token: &ProgressToken) {
        if let Ok(mut st) = self.inner.lock() {
            st.subscribers.remove(token);
            if !st.last_progress.is_empty() {
                st.last_progress.remove(token);
            }
        }
    }

    /// When progress for `token` last arrived.
    pub(in crate::session) fn last_progress(&self, token: &ProgressToken) -> Option<Instant> {
        self.inner
            .lock()
            .ok()
            .and_then(|st| st.last_progress.get(token).copied())
    }

    pub(in crate::session) fn dispatch(&self, params: ProgressNotificationParam) {
        let p = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        let f = match self.inner.lock() {
            Ok(mut st) => {
                if st.last_progress.len() >= LAST_PROGRESS_MAX
                    && !st.last_progress.contains_key(&params.progress_token)
                {
                    st.last_progress.clear();
                }
                st.last_progress
                    .insert(params.progress_token.clone(), Instant::now());
                match st.subscribers.get(&params.progress_token) {
                    Some(f) => Some(f.clone()),
                    None => {
                        if st.early.len() == EARLY_PROGRESS_MAX {
                            st.early.remove(0);
                        }
                        st.early.push((params.progress_token, p.clone()));
                        None
                    }
                }
            }
            Err(_) => None,
        };
        if let Some(f) = f {
            f(p);
        }
    }
}
