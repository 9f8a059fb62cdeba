//! Running a phase on a thread with a stack of known size.
//!
//! The phases walk trees recursively; their depth is bounded by the parser's nesting limits and
//! by the inliner's call-depth limit, not by the caller's stack (test threads get 2 MiB, a main
//! thread 8 MiB). Each phase that recurses runs through [`with_stack`], so the bound holds
//! wherever m2cu is called from. Only the stack pages used are committed.

/// Runs `f` on a scoped thread named `name` with `bytes` of stack, or on the caller's thread if
/// no thread can be started; a panic in `f` is resumed on the caller's thread.
pub fn with_stack<T: Send>(name: &str, bytes: usize, f: impl Fn() -> T + Sync) -> T {
    std::thread::scope(|scope| {
        let builder = std::thread::Builder::new()
            .name(name.into())
            .stack_size(bytes);
        match builder.spawn_scoped(scope, &f) {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => f(),
        }
    })
}
