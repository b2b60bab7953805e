fn main() -> std::process::ExitCode {
    cmem::cli::main()
}
