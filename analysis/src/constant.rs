//! `coder.gpu.constantMemory(x)`: which inputs live in the GPU's `__constant__` memory.
//!
//! Constant memory is a 64 KiB cache-backed space that broadcasts one value to all threads of a
//! warp that read the same address: good for small tables every thread reads (coefficients,
//! lookup tables). An input goes there when its size is fixed at translate time (the
//! declaration needs it), the function never assigns to it (it is uploaded once, when the call
//! begins), a kernel reads it, and it fits in what the inputs before it left of the 64 KiB.
//! Otherwise it stays in global memory and the report says why.
//!
//! Invariant: the placed arrays' bytes add up to at most [`CONSTANT_BYTES`], each is placed
//! once, and every placed array is read-only in the whole function.

use m2cu_frontend::ir::PrintTo;
use m2cu_frontend::ir::{Function, LocalId, StmtKind};
use m2cu_frontend::types::Dim;
use m2cu_frontend::Span;

use crate::plan::KernelPlan;

/// The bytes of `__constant__` memory a CUDA module may use.
pub const CONSTANT_BYTES: u64 = 64 * 1024;

/// An input placed in constant memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstantArray {
    pub local: LocalId,
    pub elements: u64,
    pub bytes: u64,
    /// The directive that asked for it.
    pub span: Span,
}

/// An input a directive named that stays in global memory, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptGlobal {
    pub local: LocalId,
    pub span: Span,
    pub why: String,
}

/// Where the inputs named by `coder.gpu.constantMemory` went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstantPlacement {
    pub placed: Vec<ConstantArray>,
    pub kept: Vec<KeptGlobal>,
}

impl ConstantPlacement {
    /// Whether `local` lives in constant memory.
    pub fn contains(&self, local: LocalId) -> bool {
        self.placed.iter().any(|c| c.local == local)
    }
}

/// Places the inputs of `f`'s `coder.gpu.constantMemory` directives, in source order.
pub fn place(f: &Function, plan: &KernelPlan) -> ConstantPlacement {
    let mut out = ConstantPlacement::default();
    let mut left = CONSTANT_BYTES;
    for &(local, span) in &f.constant_memory {
        if out.contains(local) || out.kept.iter().any(|k| k.local == local) {
            continue;
        }
        match fits(f, plan, local, left) {
            Ok(elements) => {
                let bytes = elements * f.locals[local].ty.class.size_bytes() as u64;
                left -= bytes;
                out.placed.push(ConstantArray {
                    local,
                    elements,
                    bytes,
                    span,
                });
            }
            Err(why) => out.kept.push(KeptGlobal { local, span, why }),
        }
    }
    out
}

/// The element count of `local` if it can go in constant memory with `left` bytes free.
fn fits(f: &Function, plan: &KernelPlan, local: LocalId, left: u64) -> Result<u64, String> {
    let ty = f.locals[local].ty;
    if ty.is_scalar() {
        return Err("it is a scalar, which every kernel already receives as a parameter".into());
    }
    let dims = [ty.shape.rows, ty.shape.cols, ty.shape.pages];
    let Some(elements) = dims.iter().try_fold(1u64, |n, d| match d {
        Dim::Known(k) => n.checked_mul(*k),
        Dim::Var => None,
    }) else {
        return Err(
            "its size is not fixed at translate time (give it a fixed size in the arguments block or with --args)"
                .into(),
        );
    };
    if elements == 0 {
        return Err("it is empty".into());
    }
    if assigned(f, local) {
        return Err("the function assigns to it, and constant memory is read-only".into());
    }
    if !plan
        .kernels
        .iter()
        .any(|k| k.arrays.iter().any(|a| a.local == local))
    {
        return Err("no kernel reads it".into());
    }
    let bytes = elements.saturating_mul(ty.class.size_bytes() as u64);
    if bytes > left {
        return Err(format!(
            "it needs {bytes} bytes and only {left} of the {CONSTANT_BYTES} bytes of constant memory are left"
        ));
    }
    Ok(elements)
}

/// Whether any statement of `f` assigns to `local` (whole or in part).
fn assigned(f: &Function, local: LocalId) -> bool {
    let mut found = false;
    f.walk_stmts(&f.body, &mut |s| {
        found |= match &f.stmts[s].kind {
            StmtKind::Assign { target, .. } | StmtKind::Alloc { target, .. } => *target == local,
            StmtKind::Store { array, .. }
            | StmtKind::Resize { array, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: array },
                ..
            } => *array == local,
            _ => false,
        };
    });
    found
}
