//! Facts about the machine and the code measured, for the report's header: CPU model and cores,
//! the OpenMP threads of m2cu's C path, the GPU, the date and the git commit.
//!
//! Invariants: probing never fails; a fact that cannot be found reads `unknown` (or the reason
//! the GPU is unusable), so a header always has every line.

use std::process::Command;

use m2cu_runtime::GpuStatus;

/// What the header says about where and what was measured.
#[derive(Clone, Debug)]
pub struct Machine {
    /// `model name` from /proc/cpuinfo.
    pub cpu: String,
    pub cores: usize,
    /// How many OpenMP threads the generated C uses.
    pub threads: String,
    pub gpu: GpuStatus,
    /// `date -u`.
    pub date: String,
    /// `git rev-parse --short HEAD`, marked when the worktree has uncommitted changes.
    pub commit: String,
}

impl Machine {
    pub fn probe() -> Machine {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Machine {
            cpu: cpu_model().unwrap_or_else(|| "unknown".to_string()),
            cores,
            threads: match std::env::var("OMP_NUM_THREADS") {
                Ok(n) => {
                    format!("{n} (OMP_NUM_THREADS), fewer while other processes keep cores busy")
                }
                Err(_) => {
                    format!("one per core ({cores}), fewer while other processes keep cores busy")
                }
            },
            gpu: m2cu_runtime::gpu_status(),
            date: command_line("date", &["-u"]).unwrap_or_else(|| "unknown".to_string()),
            commit: commit().unwrap_or_else(|| "unknown".to_string()),
        }
    }

    /// The header lines every report starts with: the date, the commit, `command` (as typed),
    /// the CPU with the C path's threads, and the GPU.
    pub fn header(&self, command: &str) -> Vec<String> {
        vec![
            format!("date: {}", self.date),
            format!("commit: {}", self.commit),
            format!("command: `{command}`"),
            format!(
                "CPU: {}, {} cores; m2cu C threads: {}",
                self.cpu, self.cores, self.threads
            ),
            format!("GPU: {}", self.gpu_text()),
        ]
    }

    /// Whether a GPU column can be measured.
    pub fn has_gpu(&self) -> bool {
        matches!(self.gpu, GpuStatus::Available { .. })
    }

    /// The GPU in words: its name and properties, or `no device` and why.
    pub fn gpu_text(&self) -> String {
        match &self.gpu {
            GpuStatus::Available {
                name,
                compute_capability: (major, minor),
                sm_count,
                driver_version: (dmajor, dminor),
            } => {
                format!("{name} (sm_{major}{minor}, {sm_count} SMs, CUDA driver {dmajor}.{dminor})")
            }
            GpuStatus::Unavailable(why) => format!("no device ({why})"),
        }
    }
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, model)| model.trim().to_string())
}

fn commit() -> Option<String> {
    let hash = command_line("git", &["rev-parse", "--short", "HEAD"])?;
    let changes = command_line("git", &["status", "--porcelain", "--untracked-files=no"]);
    Some(match changes {
        Some(_) => format!("{hash} with uncommitted changes"),
        None => hash,
    })
}

/// The first line of a successful command's output; `None` when it fails or prints nothing.
fn command_line(program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().next()?.trim();
    (output.status.success() && !line.is_empty()).then(|| line.to_string())
}
