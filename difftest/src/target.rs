//! Where m2cu runs a program in a campaign: the C path, or the emulated GPU under one of its
//! thread schedules (`InOrder` and `Reverse` are deterministic and fast; `Concurrent` runs a
//! block's threads as OS threads and catches races only by chance).

use m2cu::{Backend, EmuOptions, RunOptions, Schedule};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Cpu,
    Emu(Schedule),
}

impl Target {
    /// Every target, by its command-line name.
    pub const ALL: [(&'static str, Target); 4] = [
        ("cpu", Target::Cpu),
        ("emu-in-order", Target::Emu(Schedule::InOrder)),
        ("emu-reverse", Target::Emu(Schedule::Reverse)),
        ("emu-concurrent", Target::Emu(Schedule::Concurrent)),
    ];

    pub fn name(self) -> &'static str {
        Target::ALL
            .iter()
            .find(|(_, t)| *t == self)
            .map_or("?", |(n, _)| n)
    }

    /// The target called `name`.
    pub fn named(name: &str) -> Result<Target, String> {
        Target::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| {
                let names: Vec<&str> = Target::ALL.iter().map(|(n, _)| *n).collect();
                format!(
                    "unknown target `{name}`\nhelp: use one or more of {}",
                    names.join(", ")
                )
            })
    }

    pub fn run_options(self) -> RunOptions {
        match self {
            Target::Cpu => RunOptions {
                backend: Backend::Cpu,
                ..Default::default()
            },
            Target::Emu(schedule) => RunOptions {
                backend: Backend::Emu,
                emu: EmuOptions {
                    schedule,
                    ..Default::default()
                },
                ..Default::default()
            },
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
