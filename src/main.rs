fn main() -> std::process::ExitCode {
    // A parent's small `ulimit -s` must not turn a deep command into a crash.
    hookrules::os::stack::with_enough(hookrules::cli::main)
}
