fn main() -> std::process::ExitCode {
    // SAFETY: nothing has run yet, so no tree-sitter object exists and no other thread runs.
    unsafe { cmem::code::use_fast_allocator() };
    cmem::cli::main()
}
