//! The tiled variant of a matrix-product kernel (see [`m2cu_analysis::tiles`]): `<kernel>_tiles`,
//! where a block of `TILE × TILE` threads computes a tile of outputs. For each stretch of
//! `TILE` inner iterations the block's threads load the row factors of the tile's rows and
//! the column factors of its columns into shared memory (thread `(tx, ty)` loads the row
//! factor of row `tx` at inner iteration `ty` and the column factor of column `ty` at inner
//! iteration `tx`: neighbouring threads read neighbouring elements of column-major operands),
//! wait at a barrier, and each thread adds its output's products from shared memory in the
//! inner loop's order, so results equal the thread kernel's bit for bit.
//!
//! Every thread of the block runs every stretch and reaches both barriers: a thread whose row or
//! column lies past the end loads zeros and adds nothing. The variant takes the thread kernel's
//! parameters (the launch's trailing `m2cu_lanes` is not read); the host picks it with
//! `m2cu_tiles_per_output` (in the host prelude) unless the runtime forces a choice.

use askama::Template;
use m2cu_analysis::{Kernel, PerOutput, Tiles};
use m2cu_frontend::ir::ExprId;

use crate::code::Code;
use crate::cuda::kernel;
use crate::cuda::BLOCK;
use crate::expr::local_c_type;
use crate::model;
use crate::stmt::Context;

/// The side of a tile: a block's threads are `TILE × TILE`.
pub const TILE: u32 = 16;

const _: () = assert!(TILE * TILE == BLOCK);

#[derive(Template)]
#[template(path = "tiles.cu.txt", escape = "none")]
struct TilesTemplate {
    comment: String,
    block: u32,
    tile: u32,
    name: String,
    params: Vec<String>,
    row_ty: &'static str,
    col_ty: &'static str,
    /// The kernel's range suffixes of the row and column levels (`m2cu_n<row>`).
    row: String,
    col: String,
    setup: String,
    var_decl: String,
    prologue: String,
    inner_var: String,
    /// `file.m:N: for k`: the inner loop, for its comment.
    inner_loop: String,
    inner_range: String,
    /// The inner loop's range suffix (`m2cu_n<k>`).
    k: String,
    row_element: String,
    col_element: String,
    row_factor: String,
    col_factor: String,
    update: String,
    epilogue: String,
}

/// The name of the tiled variant of `kernel`.
pub fn variant_name(kernel: &Kernel) -> String {
    format!("{}_tiles", kernel.name)
}

/// The CUDA source of the tiled variant of `kernel`, whose inner loop `p` computes the matrix
/// product `t`.
pub fn kernel(ctx: &Context, kernel: &Kernel, p: &PerOutput, t: &Tiles) -> String {
    let f = ctx.f;
    let device = super::device(ctx);
    let body = &kernel.bodies(f)[0].0;
    let suffixes = model::range_suffixes(kernel);
    let level_value = |level: usize, digit: &str| {
        let var = kernel.levels[level].var;
        format!(
            "{} {} = {};",
            local_c_type(f, var),
            ctx.name(var),
            ctx.range_element(var, &suffixes[level], digit)
        )
    };
    let mut var_decl = Code::new(2);
    var_decl.line(level_value(t.row_level, "m2cu_lr"));
    var_decl.line(level_value(t.col_level, "m2cu_lc"));
    let (range, k) = device.range_decls(p.stmt);
    let mut inner_range = Code::new(3);
    inner_range.line(range);
    let exprs = device.exprs();
    let mut shared = super::device(ctx);
    shared
        .held
        .insert(t.row_factor, "m2cu_rows[m2cu_u][m2cu_tx]".into());
    shared
        .held
        .insert(t.col_factor, "m2cu_cols[m2cu_ty][m2cu_u]".into());
    let factor_type = |e: ExprId| f.exprs[e].ty.class.c_type();
    TilesTemplate {
        comment: format!(
            "{}, its sum over {} in {TILE}-by-{TILE} tiles of outputs",
            kernel::comment(ctx, kernel),
            ctx.name(p.var)
        ),
        block: BLOCK,
        tile: TILE,
        name: variant_name(kernel),
        params: model::param_decls(ctx, kernel),
        row_ty: factor_type(t.row_factor),
        col_ty: factor_type(t.col_factor),
        row: suffixes[t.row_level].clone(),
        col: suffixes[t.col_level].clone(),
        setup: kernel::variant_setup(ctx, kernel),
        var_decl: var_decl.finish(),
        prologue: device.block_text(&body[..p.position], 3),
        inner_var: ctx.name(p.var).to_string(),
        inner_loop: crate::trace::placed(
            ctx,
            ctx.f.stmts[p.stmt].span,
            &format!("for {}", ctx.name(p.var)),
        ),
        inner_range: inner_range.finish(),
        row_element: ctx.range_element(p.var, &k, "(m2cu_k0 + m2cu_ty)"),
        col_element: ctx.range_element(p.var, &k, "(m2cu_k0 + m2cu_tx)"),
        row_factor: exprs.expr(t.row_factor),
        col_factor: exprs.expr(t.col_factor),
        update: shared.block_text(&[t.update], 6),
        epilogue: device.block_text(&body[p.position + 1..], 3),
        k,
    }
    .render()
    .expect("tiles template renders")
}
