//! The MEX gateway (`<name>_mex.c`): the `mexFunction` that GNU Octave (`mkoctfile --mex`) and
//! MATLAB (`mex`) build beside the CPU program `<name>.c` and call with `mxArray` values.
//!
//! This module prints the gateway from the entry function's signature; what it does is in the
//! template (`templates/mex.c.txt`): it checks every input against the class, complexity and
//! extents the entry was translated for (MATLAB-style messages that name the input, with
//! `m2cu:input*` identifiers), passes the inputs' own memory to the entry (complex values and
//! one-byte chars converted), returns each output as a new array of its class (a complex one
//! narrowed to real as the entry's flag says), releases every output buffer, and raises a failed
//! call's message with an identifier made from its status's name (`M2CU_E_INDEX_RANGE` is
//! `m2cu:indexRange`), or the program's own `error` identifier. A function with kernels also
//! includes its GPU program (`<name>_gpu.c`), the services over the CUDA driver and NVRTC
//! ([`CUDA_SERVICES`], loaded at run time) and its kernels' source ([`kernels_source`]): it runs
//! on the GPU where one is usable, else the C program ([`Paths`]).

use askama::Template;
use m2cu_frontend::errors::ErrorCode;
use m2cu_frontend::ir::{Function, LocalId};
use m2cu_frontend::types::{Class, Dim, Type};

use crate::c_text;

/// The flags the generated C needs in every build: C99, `a*b + c` rounded twice as MATLAB
/// rounds it, and OpenMP for the parallel loops.
pub const CFLAGS: &str = "-std=c99 -ffp-contract=off -fopenmp";

#[derive(Template)]
#[template(path = "mex.c.txt", escape = "none")]
struct Gateway<'a> {
    name: &'a str,
    mex_name: &'a str,
    entry: &'a str,
    file_name: String,
    params_text: String,
    cflags: &'a str,
    inputs: Vec<String>,
    outputs: Vec<String>,
    slots: usize,
    identifiers: Vec<String>,
    user_error: i32,
    gpu: bool,
    libs: &'a str,
}

/// Which programs a MEX function runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paths {
    /// The C program only: the function has no kernels.
    Cpu,
    /// The GPU program where a GPU, its driver and libnvrtc are there, else the C program.
    CpuAndGpu,
}

/// The services of the GPU path over the CUDA driver API and NVRTC (`m2cu_cuda.c`, which the
/// gateway includes): the same text for every function.
pub const CUDA_SERVICES: &str = include_str!("c/m2cu_cuda.c");

/// `<name>_kernels.c`, which the gateway includes: the kernels' CUDA source as the C string
/// `m2cu_mex_kernels`, one literal piece per line.
pub fn kernels_source(kernels_cu: &str) -> String {
    let pieces: String = kernels_cu
        .split_inclusive('\n')
        .map(|line| format!("    {}\n", c_text::string_literal(line)))
        .collect();
    format!(
        "/* The CUDA source of the kernels, which the MEX function compiles with NVRTC. */\nstatic const char m2cu_mex_kernels[] =\n{pieces}    \"\";\n"
    )
}

/// The gateway of `f`, whose CPU entry is the C function `entry` (and GPU entry `<entry>_gpu`
/// with [`Paths::CpuAndGpu`]), as the MEX function `mex_name`; `file_name` is the MATLAB
/// source's name for the banner.
pub fn gateway(f: &Function, entry: &str, mex_name: &str, file_name: &str, paths: Paths) -> String {
    let name = |l: LocalId| f.locals[l].name.as_str();
    let outputs: Vec<String> = {
        let mut flags = 0;
        f.outputs
            .iter()
            .map(|&o| {
                let ty = f.locals[o].ty;
                let flag = if ty.complex {
                    flags += 1;
                    flags - 1
                } else {
                    -1
                };
                format!("{{{}, {}, {flag}}}", class_id(ty.class), ty.complex)
            })
            .collect()
    };
    let user_error = ErrorCode::User.code();
    let complex_outputs = f
        .outputs
        .iter()
        .filter(|&&o| f.locals[o].ty.complex)
        .count();
    Gateway {
        name: &f.name,
        mex_name,
        entry,
        file_name: c_text::comment(file_name),
        params_text: f
            .params
            .iter()
            .map(|&p| name(p))
            .collect::<Vec<_>>()
            .join(", "),
        cflags: CFLAGS,
        inputs: f
            .params
            .iter()
            .map(|&p| input_type(name(p), f.locals[p].ty))
            .collect(),
        slots: f.outputs.len() + complex_outputs,
        outputs,
        identifiers: ErrorCode::ALL
            .iter()
            .filter(|&&code| code != ErrorCode::User)
            .map(|code| {
                format!(
                    "case {}: return {};",
                    code.code(),
                    c_text::string_literal(&code.identifier())
                )
            })
            .collect(),
        user_error,
        gpu: paths == Paths::CpuAndGpu,
        libs: match paths {
            Paths::Cpu => "",
            Paths::CpuAndGpu => " -ldl",
        },
    }
    .render()
    .expect("the gateway template renders")
}

/// One row of the gateway's input table: name, class, complexity and extents (-1: any).
fn input_type(name: &str, ty: Type) -> String {
    let extent = |d: Dim| match d {
        Dim::Known(n) => n as i64,
        Dim::Var => -1,
    };
    format!(
        "{{{}, {}, {}, {{{}, {}, {}}}}}",
        c_text::string_literal(name),
        class_id(ty.class),
        ty.complex,
        extent(ty.shape.rows),
        extent(ty.shape.cols),
        extent(ty.shape.pages)
    )
}

/// The MEX API's class id of a class.
fn class_id(class: Class) -> &'static str {
    match class {
        Class::Double => "mxDOUBLE_CLASS",
        Class::Single => "mxSINGLE_CLASS",
        Class::Int8 => "mxINT8_CLASS",
        Class::Uint8 => "mxUINT8_CLASS",
        Class::Int16 => "mxINT16_CLASS",
        Class::Uint16 => "mxUINT16_CLASS",
        Class::Int32 => "mxINT32_CLASS",
        Class::Uint32 => "mxUINT32_CLASS",
        Class::Int64 => "mxINT64_CLASS",
        Class::Uint64 => "mxUINT64_CLASS",
        Class::Logical => "mxLOGICAL_CLASS",
        Class::Char => "mxCHAR_CLASS",
    }
}
