//! m2cu-difftest: random loop programs within m2cu's subset, run in GNU Octave, on m2cu's C
//! path and on its emulated CUDA path, compared bit for bit; each difference is minimized and
//! can be saved as an end-to-end fixture.
//!
//! The phases: [`gen`] builds a [`program::Case`] from a seed and an index (with inputs from
//! [`values`]), [`oracle`] runs cases in Octave, [`campaign`] translates and runs them in
//! batches and compares ([`compare`]), [`minimize`] shrinks a disagreement and [`fixture`]
//! writes it as `fixtures/e2e/NAME.{m,in.mat,out.mat}`.

pub mod campaign;
pub mod compare;
pub mod fixture;
pub mod gen;
pub mod minimize;
pub mod oracle;
pub mod program;
pub mod target;
pub mod values;

pub use campaign::{run, Config, Finding, Summary};
pub use target::Target;
pub mod mutate;
pub mod names;
pub mod process;
pub mod setcheck;
