//! A matrix product on the CPU (a kernel with [`m2cu_analysis::Tiles`]): the outputs in tiles of
//! `ROWS × COLS`, one OpenMP iteration per tile, so that the row factors of a tile's rows are read
//! once per inner iteration (consecutive elements of a column-major operand) and the column
//! factor once per column, instead of a strided row of the first operand per output.
//!
//! Each output keeps its own accumulator and adds its products one by one in the inner loop's
//! order, so results equal the untiled loop's bit for bit. Every output of a tile runs the
//! prologue (which only assigns scalars) before the inner loop, and again before its epilogue,
//! which may read the scalars it assigned; the accumulator then takes the tile's sum.

use m2cu_analysis::{Kernel, PerOutput, Tiles};
use m2cu_frontend::ir::{Block, LocalId};

use crate::code::Code;
use crate::expr::local_c_type;
use crate::stmt::Context;

/// The rows of a CPU tile: consecutive elements of the row factors.
const ROWS: u32 = 32;
/// The columns of a CPU tile: `ROWS × COLS` accumulators stay in the first-level cache.
const COLS: u32 = 16;
/// The products (outputs × inner iterations) from which the tiles are shared among OpenMP's
/// threads.
const PARALLEL_WORK: u32 = 32768;

/// The CPU loop of `kernel`, whose per-output inner loop `p` computes the matrix product `t`.
pub fn tiled_loop(ctx: &Context, code: &mut Code, kernel: &Kernel, p: &PerOutput, t: &Tiles) {
    let f = ctx.f;
    let ranges = ctx.nest_ranges(kernel);
    let level = |l: usize| (kernel.levels[l].var, ranges.suffixes[l].clone());
    let (row_var, row) = level(t.row_level);
    let (col_var, col) = level(t.col_level);
    let what = format!(
        "for {}: {} on the CPU, in {ROWS}-by-{COLS} tiles of outputs",
        ctx.name(kernel.var),
        kernel.name
    );
    code.open(crate::trace::open_block(
        ctx,
        f.stmts[kernel.stmt].span,
        &what,
    ));
    code.line(&ranges.decls);
    code.line(format!(
        "const int64_t m2cu_row_tiles = (m2cu_n{row} + {}) / {ROWS};",
        ROWS - 1
    ));
    code.line(format!(
        "const int64_t m2cu_tiles = m2cu_row_tiles * ((m2cu_n{col} + {}) / {COLS});",
        COLS - 1
    ));
    // The inner range is the same for every output (`PerOutput`): computed once, when there
    // are outputs, as the GPU's host computes it before a launch.
    code.open("if (m2cu_tiles > 0) {");
    let (range, k) = ctx.range_decls(p.stmt);
    code.line(range);
    code.line(format!(
        "#pragma omp parallel for schedule(static) if ({} * m2cu_n{k} >= {PARALLEL_WORK})",
        ranges.total
    ));
    code.open("for (int64_t m2cu_b = 0; m2cu_b < m2cu_tiles; m2cu_b++) {");
    ctx.declare(code, &kernel.privates);
    for var in [row_var, col_var] {
        code.line(format!("{} {} = 0;", local_c_type(f, var), ctx.name(var)));
    }
    code.line(format!(
        "{} m2cu_acc[{COLS}][{ROWS}];",
        local_c_type(f, t.acc)
    ));
    code.line(format!(
        "{} m2cu_x[{ROWS}];",
        f.exprs[t.row_factor].ty.class.c_type()
    ));
    code.line(format!(
        "const int64_t m2cu_r0 = m2cu_b % m2cu_row_tiles * {ROWS}, m2cu_c0 = m2cu_b / m2cu_row_tiles * {COLS};"
    ));
    code.line(format!(
        "const int m2cu_rr = m2cu_n{row} - m2cu_r0 < {ROWS} ? (int)(m2cu_n{row} - m2cu_r0) : {ROWS};"
    ));
    code.line(format!(
        "const int m2cu_cc = m2cu_n{col} - m2cu_c0 < {COLS} ? (int)(m2cu_n{col} - m2cu_c0) : {COLS};"
    ));
    let set = |var: LocalId, suffix: &str, at: &str| {
        format!(
            "{} = {};",
            ctx.name(var),
            ctx.range_element(var, suffix, at)
        )
    };
    let set_row = set(row_var, &row, "(m2cu_r0 + m2cu_r)");
    let set_col = set(col_var, &col, "(m2cu_c0 + m2cu_c)");
    let acc = ctx.name(t.acc);
    let body = &kernel.bodies(f)[0].0;
    let prologue = Block(body[..p.position].to_vec());
    let epilogue = Block(body[p.position + 1..].to_vec());
    let each_output = |code: &mut Code, inside: &dyn Fn(&mut Code)| {
        code.open("for (int m2cu_c = 0; m2cu_c < m2cu_cc; m2cu_c++) {");
        code.line(&set_col);
        code.open("for (int m2cu_r = 0; m2cu_r < m2cu_rr; m2cu_r++) {");
        code.line(&set_row);
        inside(code);
        code.close("}");
        code.close("}");
    };
    each_output(code, &|code| {
        ctx.block(code, &prologue);
        code.line(format!("m2cu_acc[m2cu_c][m2cu_r] = {acc};"));
    });
    let what = format!(
        "for {}: every output of the tile adds its product",
        ctx.name(p.var)
    );
    code.open(crate::trace::open_block(
        ctx,
        ctx.f.stmts[p.stmt].span,
        &what,
    ));
    code.open(format!(
        "for (int64_t m2cu_u = 0; m2cu_u < m2cu_n{k} && !{}; m2cu_u++) {{",
        ctx.status
    ));
    code.line(format!(
        "{} = {};",
        ctx.name(p.var),
        ctx.range_element(p.var, &k, "m2cu_u")
    ));
    code.open("for (int m2cu_r = 0; m2cu_r < m2cu_rr; m2cu_r++) {");
    code.line(&set_row);
    code.line(format!(
        "m2cu_x[m2cu_r] = {};",
        ctx.exprs().expr(t.row_factor)
    ));
    code.close("}");
    code.open("for (int m2cu_c = 0; m2cu_c < m2cu_cc; m2cu_c++) {");
    code.line(&set_col);
    code.line(format!(
        "const {} m2cu_y = {};",
        f.exprs[t.col_factor].ty.class.c_type(),
        ctx.exprs().expr(t.col_factor)
    ));
    let mut held = ctx.clone_base();
    held.held.insert(t.row_factor, "m2cu_x[m2cu_r]".into());
    held.held.insert(t.col_factor, "m2cu_y".into());
    code.open("for (int m2cu_r = 0; m2cu_r < m2cu_rr; m2cu_r++) {");
    code.line(format!("{acc} = m2cu_acc[m2cu_c][m2cu_r];"));
    held.block(code, &Block(vec![t.update]));
    code.line(format!("m2cu_acc[m2cu_c][m2cu_r] = {acc};"));
    code.close("}");
    code.close("}");
    code.close("}");
    code.close("}");
    each_output(code, &|code| {
        ctx.block(code, &prologue);
        code.line(format!("{acc} = m2cu_acc[m2cu_c][m2cu_r];"));
        ctx.block(code, &epilogue);
    });
    code.close("}");
    code.close("}");
    code.line(ctx.level_finals(kernel, &ranges));
    code.close("}");
}
