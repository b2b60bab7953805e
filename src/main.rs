fn main() -> std::process::ExitCode {
    cmem::code::use_fast_allocator();
    cmem::cli::main()
}
