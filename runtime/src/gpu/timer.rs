//! Kernel timing of one call ([`super::GpuProgram::call_timed`]): a pair of CUDA events around
//! each kernel launch on the call's stream, read after the stream is synchronized.
//!
//! Invariants: the timer exists only during a timed call (an untimed call records no event, so
//! it does exactly what it did before timing existed); every event it creates is destroyed by
//! [`KernelTimer::finish`], which the call's end always runs, whether or not the call failed;
//! the time is the sum of the launches' own spans, so uploads and downloads between kernels are
//! not in it.

use std::time::Duration;

use cudarc::driver::result::event;
use cudarc::driver::sys;

use super::cuda_error;

/// The event pairs recorded around the launches of one call, in launch order.
#[derive(Default)]
pub(crate) struct KernelTimer {
    spans: Vec<(sys::CUevent, sys::CUevent)>,
}

impl KernelTimer {
    /// Records a new span's start on `stream`, just before a launch.
    pub(crate) fn start(&mut self, stream: sys::CUstream) -> Result<(), String> {
        let create = || {
            event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| cuda_error("cuEventCreate", e))
        };
        let start = create()?;
        let end = match create() {
            Ok(end) => end,
            Err(e) => {
                destroy(start);
                return Err(e);
            }
        };
        self.spans.push((start, end));
        // SAFETY: `start` was just created; `stream` belongs to the current context.
        unsafe { event::record(start, stream) }.map_err(|e| cuda_error("cuEventRecord", e))
    }

    /// Records the last span's end on `stream`, just after its launch was queued.
    pub(crate) fn stop(&mut self, stream: sys::CUstream) -> Result<(), String> {
        let &(_, end) = self
            .spans
            .last()
            .ok_or("kernel timer: stop without start")?;
        // SAFETY: `end` was created by `start` and is not destroyed yet.
        unsafe { event::record(end, stream) }.map_err(|e| cuda_error("cuEventRecord", e))
    }

    /// The summed time of every span (the stream must be synchronized), destroying the events.
    pub(crate) fn finish(self) -> Result<Duration, String> {
        let mut total_ms = 0.0f64;
        let mut first_error = None;
        for &(start, end) in &self.spans {
            // SAFETY: both events were created and recorded on one stream, which is synchronized.
            match unsafe { event::elapsed(start, end) } {
                Ok(ms) => total_ms += f64::from(ms),
                Err(e) => {
                    first_error.get_or_insert(cuda_error("cuEventElapsedTime", e));
                }
            }
            destroy(start);
            destroy(end);
        }
        match first_error {
            Some(message) => Err(message),
            None => Ok(Duration::from_secs_f64(total_ms / 1e3)),
        }
    }
}

fn destroy(e: sys::CUevent) {
    // SAFETY: `e` was created by cuEventCreate and is destroyed once. A failure leaks one event,
    // which is not worth failing a finished call for.
    let _ = unsafe { event::destroy(e) };
}
