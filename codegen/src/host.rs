//! Host programs: the entry function in its three flavors.
//!
//! - [`Flavor::Cpu`]: `<entry>(...)`, everything on the CPU, parallel loops with OpenMP.
//! - [`Flavor::GpuRuntime`]: `<entry>_gpu(..., const m2cu_gpu *m2cu_dev, ...)`, kernels launched
//!   through the m2cu runtime's callbacks.
//! - [`Flavor::Standalone`]: `<entry>_cuda(...)`, kernels launched with the CUDA runtime API, for
//!   nvcc users.
//!
//! All share one frame: declarations first (so that `goto m2cu_done` never skips an
//! initialization, which C++ forbids), then input checks and unpacking, the body, and at
//! `m2cu_done` the outputs (or the error message) and the release of every array the function
//! owns. Input arrays that the function never writes are borrowed, never copied or freed.

use std::collections::{BTreeMap, BTreeSet};

use m2cu_frontend::ir::PrintTo;
use m2cu_frontend::ir::{ExprKind, Function, Kept, LocalId, StmtKind};
use m2cu_frontend::types::Dim;

use crate::c_text::string_literal;
use crate::code::Code;
use crate::expr::local_c_type;
use crate::launch::GpuHost;
use crate::openmp::OpenMp;
use crate::residency;
use crate::stmt::Context;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavor {
    Cpu,
    GpuRuntime,
    Standalone,
}

impl Flavor {
    pub fn symbol(self, entry: &str) -> String {
        match self {
            Flavor::Cpu => entry.to_string(),
            Flavor::GpuRuntime => format!("{entry}_gpu"),
            Flavor::Standalone => format!("{entry}_cuda"),
        }
    }

    pub fn signature(self, entry: &str) -> String {
        let gpu = if self == Flavor::GpuRuntime {
            "const m2cu_gpu *m2cu_dev, "
        } else {
            ""
        };
        format!(
            "int {}(const m2cu_array *m2cu_in, m2cu_array *m2cu_out, {gpu}char *m2cu_msg, size_t m2cu_msg_len)",
            self.symbol(entry)
        )
    }
}

/// The `M2CU_*` macros a GPU host program launches kernels and moves arrays with.
pub fn gpu_macros(flavor: Flavor) -> String {
    let services = match flavor {
        Flavor::Cpu => return String::new(),
        Flavor::GpuRuntime => GPU_RUNTIME_MACROS,
        Flavor::Standalone => CUDA_RUNTIME_MACROS,
    };
    format!(
        "{services}{}{}",
        residency::MACROS,
        crate::launch::take_detail_macro()
    )
}

const CHECK: &str = "#define M2CU_CHECK(call) do { if ((call) != 0) { m2cu_status = M2CU_E_GPU; goto m2cu_done; } } while (0)\n";

const GPU_RUNTIME_MACROS: &str = r#"
/* Device services of the m2cu runtime (see m2cu_gpu in the ABI). */
#define M2CU_SM_COUNT (m2cu_dev->sm_count)
#define M2CU_LANES (m2cu_dev->lanes)
#define M2CU_ALLOC(p, bytes) m2cu_dev->alloc(m2cu_dev->ctx, &(p), (bytes))
#define M2CU_FREE(p) m2cu_dev->release(m2cu_dev->ctx, (p))
#define M2CU_UPLOAD(d, h, bytes) m2cu_dev->upload(m2cu_dev->ctx, (d), (h), (bytes))
#define M2CU_DOWNLOAD(h, d, bytes) m2cu_dev->download(m2cu_dev->ctx, (h), (d), (bytes))
#define M2CU_DEVICE_COPY(d, s, bytes) m2cu_dev->copy(m2cu_dev->ctx, (d), (s), (bytes))
#define M2CU_LAUNCH(name, fn, grid, block, shared, args) m2cu_dev->launch(m2cu_dev->ctx, (name), (grid), (block), (shared), (args))
#define M2CU_TO_CONSTANT(name, sym, src, bytes) m2cu_dev->to_constant(m2cu_dev->ctx, (name), (src), (bytes))
"#;

const CUDA_RUNTIME_MACROS: &str = r#"
/* Device services over the CUDA runtime API. */
static int m2cu_sm_count(void)
{
    int device = 0, count = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    return count;
}
#define M2CU_SM_COUNT m2cu_sm_count()
#define M2CU_LANES 0 /* the host program chooses the threads per output */
#define M2CU_ALLOC(p, bytes) (int)cudaMalloc((void **)&(p), (bytes))
#define M2CU_FREE(p) cudaFree((void *)(p))
#define M2CU_UPLOAD(d, h, bytes) (int)cudaMemcpy((void *)(d), (h), (bytes), cudaMemcpyHostToDevice)
#define M2CU_DOWNLOAD(h, d, bytes) (int)cudaMemcpy((h), (const void *)(d), (bytes), cudaMemcpyDeviceToHost)
#define M2CU_DEVICE_COPY(d, s, bytes) (int)cudaMemcpy((void *)(d), (const void *)(s), (bytes), cudaMemcpyDeviceToDevice)
#define M2CU_LAUNCH(name, fn, grid, block, shared, args) (int)cudaLaunchKernel((const void *)(fn), dim3(grid), dim3(block), (args), (shared), 0)
#define M2CU_TO_CONSTANT(name, sym, src, bytes) (int)cudaMemcpyToSymbol(sym, (src), (bytes))
"#;

/// The `M2CU_CHECK` macro shared by both GPU flavors.
pub fn check_macro(flavor: Flavor) -> &'static str {
    if flavor == Flavor::Cpu {
        ""
    } else {
        CHECK
    }
}

/// Who owns each array parameter's storage in the entry.
struct Storage {
    /// Input arrays the function never writes: read in place, never freed.
    borrowed: BTreeSet<LocalId>,
    /// Array parameters that are also outputs (the first output that names them) and may be
    /// computed in the input's memory when the caller offers it (ABI version 3, CPU entry
    /// only): only element stores write them, so the caller's buffer is never freed, resized
    /// or handed to another array. Each maps to its output's position.
    in_place: BTreeMap<LocalId, usize>,
}

impl Storage {
    fn of(ctx: &Context, flavor: Flavor) -> Storage {
        let f = ctx.f;
        let mut written = BTreeSet::new();
        let mut replaced = BTreeSet::new();
        f.walk_stmts(&f.body, &mut |s| match &f.stmts[s].kind {
            StmtKind::Assign { target, value } => {
                written.insert(*target);
                replaced.insert(*target);
                if let ExprKind::Local(source) = f.exprs[*value].kind {
                    if ctx.analysis.host_moves.contains(&s) {
                        replaced.insert(source);
                    }
                }
            }
            StmtKind::Alloc { target, .. }
            | StmtKind::Resize { array: target, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: target },
                ..
            } => {
                written.insert(*target);
                replaced.insert(*target);
            }
            StmtKind::Store { array: target, .. } => {
                written.insert(*target);
            }
            _ => {}
        });
        let arrays = || {
            f.params
                .iter()
                .copied()
                .filter(|p| !f.locals[*p].ty.is_scalar())
        };
        let in_place = arrays()
            .filter(|p| flavor == Flavor::Cpu && !replaced.contains(p))
            .filter_map(|p| Some((p, f.outputs.iter().position(|&o| o == p)?)))
            .collect();
        Storage {
            borrowed: arrays().filter(|p| !written.contains(p)).collect(),
            in_place,
        }
    }

    /// The pointer to the memory the caller offers for output `j` (NULL when it offers none).
    fn given(j: usize) -> String {
        format!("m2cu_given{j}")
    }
}

/// The entry function of one flavor.
pub fn entry_function(ctx: &Context, flavor: Flavor) -> String {
    let f = ctx.f;
    let mut code = Code::new(0);
    // The standalone `.cu` is C++: its export keeps the C linkage that `<entry>.h` declares.
    let linkage = if flavor == Flavor::Standalone {
        "extern \"C\" "
    } else {
        ""
    };
    code.line(format!("{linkage}{}", flavor.signature(ctx.names.entry())));
    code.open("{");
    code.line("int m2cu_status = 0;");
    code.line("m2cu_call_begins(); /* no failed index check of this call yet */");
    if crate::draws_random(f) {
        code.line("uint64_t m2cu_draws = 0; /* draws taken from the random stream */");
    }
    // Every declaration comes before the first `goto m2cu_done`: C++ (the standalone `.cu`)
    // forbids a jump past an initialized declaration, and the exit path reads them all.
    let allocated = declarations(ctx, &mut code);
    if flavor != Flavor::Cpu {
        residency::declare(ctx, &mut code);
    }
    let storage = Storage::of(ctx, flavor);
    offers(ctx, &mut code, &storage);
    code.line(format!(
        "for (int m2cu_k = 0; m2cu_k < {}; m2cu_k++) m2cu_out[m2cu_k].data = NULL;",
        abi_outputs(f)
    ));
    if let Some(check) = allocated {
        code.line(check);
    }
    inputs(ctx, &mut code, &storage);
    if flavor != Flavor::Cpu {
        residency::upload_constants(ctx, &mut code);
    }
    let body_ctx = Context {
        target: if flavor == Flavor::Cpu {
            &OpenMp
        } else {
            &GpuHost
        },
        ..ctx.with_status("m2cu_status", "&m2cu_status")
    };
    body_ctx.block(&mut code, &f.body);
    code.close("m2cu_done:");
    code.indent_more();
    if flavor != Flavor::Cpu {
        residency::finish(ctx, &mut code);
    }
    outputs(ctx, &mut code, &storage);
    for (id, local) in f.locals.iter() {
        if local.ty.is_scalar() || storage.borrowed.contains(&id) {
            continue;
        }
        match storage.in_place.get(&id) {
            Some(&j) => code.line(format!(
                "if ({0} != {1}) free({0});",
                ctx.name(id),
                Storage::given(j)
            )),
            None => code.line(format!("free({});", ctx.name(id))),
        }
    }
    code.line("m2cu_call_ends();");
    code.line("return m2cu_status;");
    code.close("}");
    code.finish()
}

/// Locals start at zero. An array that is not an input starts undefined: its row extent is -1
/// (so it has no elements and every index check fails) and it points at a zeroed buffer of its
/// own, so that the offset 0 a failed check yields is never a NULL dereference. Returns the
/// check that those buffers were allocated, which the caller prints after the last declaration.
fn declarations(ctx: &Context, code: &mut Code) -> Option<String> {
    let own = crate::combine::locals(ctx.f);
    let mut placeholders = Vec::new();
    for (id, local) in ctx.f.locals.iter().filter(|(id, _)| !own.contains(id)) {
        let name = ctx.name(id);
        if local.ty.is_scalar() {
            let zero = crate::expr::complex::zero(local.ty);
            code.line(format!("{} {name} = {zero};", local_c_type(ctx.f, id)));
            continue;
        }
        let ty = crate::expr::complex::c_type(local.ty);
        let (data, rows) = if ctx.f.is_param(id) {
            ("NULL".to_string(), "0")
        } else {
            placeholders.push(name.to_string());
            (format!("({ty} *)calloc(1, sizeof(m2cu_empty))"), "-1")
        };
        code.line(format!("{ty} *{name} = {data};"));
        if ctx.names.is_3d(id) {
            code.line(format!(
                "int64_t {name}_d0 = {rows}, {name}_d1 = 0, {name}_d2 = 0;"
            ));
        } else {
            code.line(format!("int64_t {name}_d0 = {rows}, {name}_d1 = 0;"));
        }
    }
    (!placeholders.is_empty()).then(|| {
        let missing: Vec<String> = placeholders.iter().map(|p| format!("!{p}")).collect();
        format!(
            "if ({}) {{ m2cu_status = M2CU_E_NOMEM; goto m2cu_done; }}",
            missing.join(" || ")
        )
    })
}

/// Reads the caller's offers before the outputs are cleared: `m2cu_given<j>` is input `k`'s
/// data when output `j` starts as input `k`'s array (with elements) and the entry may compute
/// it there.
fn offers(ctx: &Context, code: &mut Code, storage: &Storage) {
    let f = ctx.f;
    for (&p, &j) in &storage.in_place {
        let k = f.params.iter().position(|&q| q == p).expect("a parameter");
        code.line(format!(
            "void *{} = m2cu_out[{j}].data != NULL && m2cu_out[{j}].data == m2cu_in[{k}].data && \
             m2cu_in[{k}].dims[0] * m2cu_in[{k}].dims[1] * m2cu_in[{k}].dims[2] > 0 ? \
             m2cu_in[{k}].data : NULL; /* `{}` in the caller's memory */",
            Storage::given(j),
            ctx.name(p)
        ));
    }
}

fn inputs(ctx: &Context, code: &mut Code, storage: &Storage) {
    let f = ctx.f;
    for (k, &p) in f.params.iter().enumerate() {
        let local = &f.locals[p];
        let (name, ty) = (ctx.name(p), crate::expr::complex::c_type(local.ty));
        let shape = local.ty.shape;
        let checks: Vec<String> = [(0, shape.rows), (1, shape.cols), (2, shape.pages)]
            .into_iter()
            .filter_map(|(d, dim)| match dim {
                Dim::Known(n) => Some(format!("m2cu_in[{k}].dims[{d}] != {n}")),
                Dim::Var => None,
            })
            .collect();
        if !checks.is_empty() {
            code.line(format!(
                "if ({}) {{ m2cu_status = M2CU_E_INPUT; goto m2cu_done; }}",
                checks.join(" || ")
            ));
        }
        if local.ty.is_scalar() {
            code.line(format!("{name} = *(const {ty} *)m2cu_in[{k}].data;"));
            continue;
        }
        code.line(format!(
            "{name}_d0 = m2cu_in[{k}].dims[0];\n{name}_d1 = m2cu_in[{k}].dims[1];"
        ));
        if ctx.names.is_3d(p) {
            code.line(format!("{name}_d2 = m2cu_in[{k}].dims[2];"));
        }
        let numel = ctx.names.numel(p);
        if let (Some(&j), false) = (storage.in_place.get(&p), storage.borrowed.contains(&p)) {
            code.line(format!(
                "{name} = ({ty} *){0};\nif ({name} == NULL) {name} = ({ty} *)m2cu_dup(m2cu_in[{k}].data, (size_t){numel} * sizeof({ty}));",
                Storage::given(j)
            ));
            code.line(format!(
                "if ({name} == NULL) {{ m2cu_status = M2CU_E_NOMEM; goto m2cu_done; }}"
            ));
        } else if storage.borrowed.contains(&p) {
            code.line(format!(
                "{name} = ({ty} *)({numel} > 0 ? m2cu_in[{k}].data : (void *)m2cu_empty);"
            ));
        } else {
            code.line(format!(
                "{name} = ({ty} *)m2cu_dup(m2cu_in[{k}].data, (size_t){numel} * sizeof({ty}));"
            ));
            code.line(format!(
                "if ({name} == NULL) {{ m2cu_status = M2CU_E_NOMEM; goto m2cu_done; }}"
            ));
        }
    }
}

/// How many `m2cu_out` entries the entry fills: its outputs, then one logical per complex
/// output (`m2cu_abi.h`, `lower::complex_io`).
fn abi_outputs(f: &Function) -> usize {
    f.outputs.len() + f.complex_outputs.len()
}

/// `m2cu_out[k]`: a 1-by-1 value of C type `ty` holding `value`.
fn scalar_output(code: &mut Code, k: usize, ty: &str, value: &str) {
    code.line(format!("m2cu_out[{k}].data = malloc(sizeof({ty}));"));
    code.line(format!(
        "if (m2cu_out[{k}].data != NULL) *({ty} *)m2cu_out[{k}].data = {value};"
    ));
    code.line(format!(
        "m2cu_out[{k}].dims[0] = 1; m2cu_out[{k}].dims[1] = 1; m2cu_out[{k}].dims[2] = 1;"
    ));
}

/// After the outputs, whether each complex output stays complex with a zero imaginary part.
fn kept_flags(ctx: &Context, code: &mut Code) {
    let f = ctx.f;
    for (j, (_, kept)) in f.complex_outputs.iter().enumerate() {
        let k = f.outputs.len() + j;
        let value = match kept {
            Kept::Always => "true".to_string(),
            Kept::Never => "false".to_string(),
            Kept::Flag(flag) => ctx.name(*flag).to_string(),
        };
        scalar_output(code, k, "bool", &value);
        code.line(format!(
            "if (m2cu_out[{k}].data == NULL) m2cu_status = M2CU_E_NOMEM;"
        ));
    }
}

fn outputs(ctx: &Context, code: &mut Code, storage: &Storage) {
    let f = ctx.f;
    code.open("if (m2cu_status == 0) {");
    for (k, &o) in f.outputs.iter().enumerate() {
        let local = &f.locals[o];
        let (name, ty) = (ctx.name(o), crate::expr::complex::c_type(local.ty));
        if local.ty.is_scalar() {
            let value = match local.ty.complex {
                true => name.to_string(),
                false => format!("({ty}){name}"),
            };
            scalar_output(code, k, ty, &value);
        } else {
            code.line(format!(
                "if ({name}_d0 < 0) m2cu_status = M2CU_E_UNDEFINED;"
            ));
            let bytes = format!("(size_t){} * sizeof({ty})", ctx.names.numel(o));
            let dup = format!("m2cu_dup({name}, {bytes})");
            if storage.in_place.get(&o) == Some(&k) && storage.borrowed.contains(&o) {
                let given = Storage::given(k);
                code.line(format!(
                    "m2cu_out[{k}].data = {given} != NULL ? {given} : {dup};"
                ));
            } else if storage.borrowed.contains(&o) || f.outputs[..k].contains(&o) {
                code.line(format!("m2cu_out[{k}].data = {dup};"));
            } else {
                code.line(format!("m2cu_out[{k}].data = {name}; {name} = NULL;"));
            }
            code.line(format!(
                "m2cu_out[{k}].dims[0] = {name}_d0; m2cu_out[{k}].dims[1] = {name}_d1; m2cu_out[{k}].dims[2] = {};",
                ctx.names.dim(o, 2)
            ));
        }
        code.line(format!(
            "if (m2cu_out[{k}].data == NULL) m2cu_status = M2CU_E_NOMEM;"
        ));
    }
    kept_flags(ctx, code);
    code.close("}");
    code.open("if (m2cu_status != 0) {");
    for &j in storage.in_place.values() {
        let given = Storage::given(j);
        code.line(format!(
            "if (m2cu_out[{j}].data == {given}) m2cu_out[{j}].data = NULL; /* the caller's */"
        ));
    }
    code.line(format!(
        "for (int m2cu_k = 0; m2cu_k < {}; m2cu_k++) {{ free(m2cu_out[m2cu_k].data); m2cu_out[m2cu_k].data = NULL; }}",
        abi_outputs(f)
    ));
    if !f.undefined_names.is_empty() {
        let names: Vec<String> = f
            .undefined_names
            .iter()
            .map(|n| string_literal(n))
            .collect();
        code.line(format!(
            "static const char *const m2cu_undefined[] = {{{}}};",
            names.join(", ")
        ));
        code.line("m2cu_name_undefined(&m2cu_status, m2cu_undefined, m2cu_msg, m2cu_msg_len);");
    }
    code.line("m2cu_message(m2cu_status, m2cu_site_text, m2cu_msg, m2cu_msg_len);");
    code.line("m2cu_status %= 256; /* the code: its site is in the message */");
    code.close("}");
}
