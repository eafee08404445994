fn main() -> std::process::ExitCode {
    hookrules::cli::main()
}
