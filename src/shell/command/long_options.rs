//! Long options written as abbreviations, read as the option they stand for.
//!
//! getopt_long (GNU coreutils, tar, util-linux, mdadm, parted) and git's
//! parse-options accept any unambiguous prefix of a long option: `rm --recur
//! --forc /` is `rm --recursive --force /`, `git reset --har` is `git reset
//! --hard`, `git commit --no-ver` is `git commit --no-verify`. A policy names
//! the full option, so the parser reports a command's flags by their full
//! names for the programs below (and keeps the arguments as written). An exact
//! name always wins (getopt's rule); a prefix that several options share is
//! ambiguous, which the program refuses, and is kept as written.
//!
//! The tables are the programs' complete lists of long options (a partial list
//! would resolve a prefix the program finds ambiguous): coreutils, tar,
//! util-linux and git 2.47 from their `--help`/`-h` output, mdadm from its
//! manual, curl 7.88.1 and wget 1.21.3 from `--help all`/`--help` plus the
//! hidden names each binary accepts (every word of `strings` tried as
//! `--WORD`: curl's `--ftp-ssl`, `--krb4`, wget's `--no-OPTION` forms). git's
//! options depend on the subcommand (`"git push"`). curl's `--no-` prefix
//! before an abbreviation (`--no-keepal`) is not resolved.
//!
//! The tools whose options take code (`policies/data/code-places.toml`) are
//! here so that `tar --use-compress-prog=CMD` is found as the place it is:
//! GNU tar 1.34 (`--usage`, and argp's hidden `--HANG` and `--program-name`),
//! sed 4.9 (and its hidden `--binary`, `--zero-terminated`), gdb 13.1, GNU make
//! 4.3, man-db 2.11.2, psql 15, util-linux 2.38 script, coreutils 9.1 split and
//! Info-ZIP zip 3.0 (their help and `strings`, each word tried as `--WORD` on
//! the real binary; a word it accepts only as a prefix of another is left
//! out), git 2.47's clone, ls-remote (with its hidden `--exec`), difftool,
//! grep and archive (`-h`). gdb's one-dash abbreviations (`-eval-c`) are not
//! resolved.

/// Programs (and git subcommands) with their long options, without `--`.
#[rustfmt::skip]
const TABLE: &[(&str, &[&str])] = &[
    ("blkdiscard", &["force", "help", "length", "offset", "secure", "step", "verbose", "version", "zeroout"]),
    ("chgrp", &["changes", "dereference", "help", "no-dereference", "no-preserve-root", "preserve-root", "quiet", "recursive", "reference", "silent", "verbose", "version"]),
    ("chmod", &["changes", "help", "no-preserve-root", "preserve-root", "quiet", "recursive", "reference", "silent", "verbose", "version"]),
    ("chown", &["changes", "dereference", "from", "help", "no-dereference", "no-preserve-root", "preserve-root", "quiet", "recursive", "reference", "silent", "verbose", "version"]),
    ("cp", &["archive", "attributes-only", "backup", "context", "copy-contents", "dereference", "force", "help", "interactive", "link", "no-clobber", "no-dereference", "no-preserve", "no-target-directory", "one-file-system", "parents", "preserve", "recursive", "reflink", "remove-destination", "sparse", "strip-trailing-slashes", "suffix", "symbolic-link", "target-directory", "update", "verbose", "version"]),
    ("curl", &["abstract-unix-socket", "alt-svc", "anyauth", "append", "aws-sigv4", "basic", "cacert", "capath", "cert", "cert-status", "cert-type", "ciphers", "compressed", "compressed-ssh", "config", "connect-timeout", "connect-to", "continue-at", "cookie", "cookie-jar", "create-dirs", "create-file-mode", "crlf", "crlfile", "curves", "data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "delegation", "digest", "disable", "disable-eprt", "disable-epsv", "disallow-username-in-url", "dns-interface", "dns-ipv4-addr", "dns-ipv6-addr", "dns-servers", "doh-cert-status", "doh-insecure", "doh-url", "dump-header", "egd-file", "engine", "etag-compare", "etag-save", "expect100-timeout", "fail", "fail-early", "fail-with-body", "false-start", "form", "form-escape", "form-string", "ftp-account", "ftp-alternative-to-user", "ftp-create-dirs", "ftp-method", "ftp-pasv", "ftp-port", "ftp-pret", "ftp-skip-pasv-ip", "ftp-ssl", "ftp-ssl-ccc", "ftp-ssl-ccc-mode", "ftp-ssl-control", "ftp-ssl-reqd", "get", "globoff", "happy-eyeballs-timeout-ms", "haproxy-protocol", "head", "header", "help", "hostpubmd5", "hostpubsha256", "hsts", "http0.9", "http1.0", "http1.1", "http2", "http2-prior-knowledge", "http3", "http3-only", "ignore-content-length", "include", "insecure", "interface", "ipv4", "ipv6", "json", "junk-session-cookies", "keepalive-time", "key", "key-type", "krb", "krb4", "libcurl", "limit-rate", "list-only", "local-port", "location", "location-trusted", "login-options", "mail-auth", "mail-from", "mail-rcpt", "mail-rcpt-allowfails", "manual", "max-filesize", "max-redirs", "max-time", "metalink", "negotiate", "netrc", "netrc-file", "netrc-optional", "next", "no-alpn", "no-buffer", "no-clobber", "no-keepalive", "no-npn", "no-progress-meter", "no-sessionid", "noproxy", "ntlm", "ntlm-wb", "oauth2-bearer", "output", "output-dir", "parallel", "parallel-immediate", "parallel-max", "pass", "path-as-is", "pinnedpubkey", "post301", "post302", "post303", "preproxy", "progress-bar", "proto", "proto-default", "proto-redir", "proxy", "proxy-anyauth", "proxy-basic", "proxy-cacert", "proxy-capath", "proxy-cert", "proxy-cert-type", "proxy-ciphers", "proxy-crlfile", "proxy-digest", "proxy-header", "proxy-insecure", "proxy-key", "proxy-key-type", "proxy-negotiate", "proxy-ntlm", "proxy-pass", "proxy-pinnedpubkey", "proxy-service-name", "proxy-ssl-allow-beast", "proxy-ssl-auto-client-cert", "proxy-tls13-ciphers", "proxy-tlsauthtype", "proxy-tlspassword", "proxy-tlsuser", "proxy-tlsv1", "proxy-user", "proxy1.0", "proxytunnel", "pubkey", "quote", "random-file", "range", "rate", "raw", "referer", "remote-header-name", "remote-name", "remote-name-all", "remote-time", "remove-on-error", "request", "request-target", "resolve", "retry", "retry-all-errors", "retry-connrefused", "retry-delay", "retry-max-time", "sasl-authzid", "sasl-ir", "service-name", "show-error", "silent", "socks4", "socks4a", "socks5", "socks5-basic", "socks5-gssapi", "socks5-gssapi-nec", "socks5-gssapi-service", "socks5-hostname", "speed-limit", "speed-time", "ssl", "ssl-allow-beast", "ssl-auto-client-cert", "ssl-no-revoke", "ssl-reqd", "ssl-revoke-best-effort", "sslv2", "sslv3", "stderr", "styled-output", "suppress-connect-headers", "tcp-fastopen", "tcp-nodelay", "telnet-option", "test-event", "tftp-blksize", "tftp-no-options", "time-cond", "tls-max", "tls13-ciphers", "tlsauthtype", "tlspassword", "tlsuser", "tlsv1", "tlsv1.0", "tlsv1.1", "tlsv1.2", "tlsv1.3", "tr-encoding", "trace", "trace-ascii", "trace-time", "unix-socket", "upload-file", "url", "url-query", "use-ascii", "user", "user-agent", "verbose", "version", "write-out", "xattr"]),
    ("gdb", &["D", "annotate", "args", "b", "batch", "batch-silent", "baud", "c", "cd", "command", "configuration", "core", "d", "data-directory", "directory", "e", "early-init-command", "early-init-eval-command", "eiex", "eix", "eval-command", "ex", "exec", "f", "fullname", "help", "i", "iex", "init-command", "init-eval-command", "interpreter", "ix", "l", "n", "nh", "nowindows", "nw", "nx", "p", "pid", "q", "quiet", "r", "readnever", "readnow", "return-child-result", "s", "se", "silent", "statistics", "symbols", "tty", "tui", "ui", "version", "w", "windows", "write", "x"]),
    ("git add", &["all", "chmod", "dry-run", "edit", "force", "help", "ignore-errors", "ignore-missing", "ignore-removal", "intent-to-add", "interactive", "no-all", "no-chmod", "no-dry-run", "no-edit", "no-force", "no-ignore-errors", "no-ignore-missing", "no-ignore-removal", "no-intent-to-add", "no-interactive", "no-patch", "no-pathspec-file-nul", "no-pathspec-from-file", "no-refresh", "no-renormalize", "no-sparse", "no-update", "no-verbose", "patch", "pathspec-file-nul", "pathspec-from-file", "refresh", "renormalize", "sparse", "update", "verbose"]),
    ("git archive", &["add-file", "add-virtual-file", "exec", "format", "help", "list", "mtime", "no-add-file", "no-add-virtual-file", "no-exec", "no-format", "no-list", "no-output", "no-prefix", "no-remote", "no-verbose", "no-worktree-attributes", "output", "prefix", "remote", "verbose", "worktree-attributes"]),
    ("git branch", &["abbrev", "all", "color", "column", "contains", "copy", "create-reflog", "delete", "edit-description", "force", "format", "help", "ignore-case", "list", "merged", "move", "no-abbrev", "no-color", "no-column", "no-contains", "no-copy", "no-create-reflog", "no-delete", "no-edit-description", "no-force", "no-format", "no-ignore-case", "no-list", "no-merged", "no-move", "no-omit-empty", "no-points-at", "no-quiet", "no-recurse-submodules", "no-set-upstream-to", "no-show-current", "no-sort", "no-track", "no-unset-upstream", "no-verbose", "omit-empty", "points-at", "quiet", "recurse-submodules", "remotes", "set-upstream-to", "show-current", "sort", "track", "unset-upstream", "verbose"]),
    ("git checkout", &["conflict", "detach", "force", "guess", "help", "ignore-other-worktrees", "ignore-skip-worktree-bits", "merge", "no-conflict", "no-detach", "no-force", "no-guess", "no-ignore-other-worktrees", "no-ignore-skip-worktree-bits", "no-merge", "no-orphan", "no-overlay", "no-overwrite-ignore", "no-patch", "no-pathspec-file-nul", "no-pathspec-from-file", "no-progress", "no-quiet", "no-recurse-submodules", "no-track", "orphan", "ours", "overlay", "overwrite-ignore", "patch", "pathspec-file-nul", "pathspec-from-file", "progress", "quiet", "recurse-submodules", "theirs", "track"]),
    ("git cherry-pick", &["abort", "allow-empty", "allow-empty-message", "cleanup", "commit", "continue", "edit", "empty", "ff", "gpg-sign", "help", "keep-redundant-commits", "mainline", "no-allow-empty", "no-allow-empty-message", "no-cleanup", "no-commit", "no-edit", "no-ff", "no-gpg-sign", "no-keep-redundant-commits", "no-mainline", "no-rerere-autoupdate", "no-signoff", "no-strategy", "no-strategy-option", "quit", "rerere-autoupdate", "signoff", "skip", "strategy", "strategy-option"]),
    ("git clean", &["dry-run", "exclude", "force", "help", "interactive", "no-dry-run", "no-force", "no-interactive", "no-quiet", "quiet"]),
    ("git clone", &["also-filter-submodules", "bare", "branch", "bundle-uri", "checkout", "config", "depth", "dissociate", "filter", "hardlinks", "help", "ipv4", "ipv6", "jobs", "local", "mirror", "no-also-filter-submodules", "no-bare", "no-branch", "no-bundle-uri", "no-checkout", "no-config", "no-depth", "no-dissociate", "no-filter", "no-hardlinks", "no-jobs", "no-local", "no-mirror", "no-origin", "no-progress", "no-quiet", "no-recurse-submodules", "no-recursive", "no-ref-format", "no-reference", "no-reference-if-able", "no-reject-shallow", "no-remote-submodules", "no-separate-git-dir", "no-server-option", "no-shallow-exclude", "no-shallow-since", "no-shallow-submodules", "no-shared", "no-single-branch", "no-sparse", "no-tags", "no-template", "no-upload-pack", "no-verbose", "origin", "progress", "quiet", "recurse-submodules", "recursive", "ref-format", "reference", "reference-if-able", "reject-shallow", "remote-submodules", "separate-git-dir", "server-option", "shallow-exclude", "shallow-since", "shallow-submodules", "shared", "single-branch", "sparse", "tags", "template", "upload-pack", "verbose"]),
    ("git commit", &["ahead-behind", "all", "allow-empty", "allow-empty-message", "amend", "author", "branch", "cleanup", "date", "dry-run", "edit", "file", "fixup", "gpg-sign", "help", "include", "interactive", "long", "message", "no-ahead-behind", "no-all", "no-amend", "no-author", "no-branch", "no-cleanup", "no-date", "no-dry-run", "no-edit", "no-file", "no-fixup", "no-gpg-sign", "no-include", "no-interactive", "no-long", "no-message", "no-null", "no-only", "no-patch", "no-pathspec-file-nul", "no-pathspec-from-file", "no-porcelain", "no-post-rewrite", "no-quiet", "no-reedit-message", "no-reset-author", "no-reuse-message", "no-short", "no-signoff", "no-squash", "no-status", "no-template", "no-untracked-files", "no-verbose", "no-verify", "null", "only", "patch", "pathspec-file-nul", "pathspec-from-file", "porcelain", "post-rewrite", "quiet", "reedit-message", "reset-author", "reuse-message", "short", "signoff", "squash", "status", "template", "trailer", "untracked-files", "verbose", "verify"]),
    ("git difftool", &["dir-diff", "extcmd", "gui", "help", "index", "no-dir-diff", "no-extcmd", "no-gui", "no-index", "no-prompt", "no-symlinks", "no-tool", "no-tool-help", "no-trust-exit-code", "symlinks", "tool", "tool-help", "trust-exit-code"]),
    ("git fetch", &["all", "append", "atomic", "auto", "auto-gc", "auto-maintenance", "deepen", "depth", "dry-run", "filter", "force", "help", "ipv4", "ipv6", "jobs", "keep", "multiple", "negotiate-only", "negotiation-tip", "no-all", "no-append", "no-atomic", "no-auto-gc", "no-auto-maintenance", "no-deepen", "no-depth", "no-dry-run", "no-filter", "no-force", "no-jobs", "no-keep", "no-multiple", "no-negotiate-only", "no-negotiation-tip", "no-porcelain", "no-prefetch", "no-progress", "no-prune", "no-prune-tags", "no-quiet", "no-recurse-submodules", "no-server-option", "no-set-upstream", "no-shallow-exclude", "no-shallow-since", "no-show-forced-updates", "no-stdin", "no-tags", "no-update-head-ok", "no-update-shallow", "no-upload-pack", "no-verbose", "no-write-commit-graph", "no-write-fetch-head", "porcelain", "prefetch", "progress", "prune", "prune-tags", "quiet", "recurse-submodules", "refetch", "refmap", "server-option", "set-upstream", "shallow-exclude", "shallow-since", "show-forced-updates", "stdin", "tags", "unshallow", "update-head-ok", "update-shallow", "upload-pack", "verbose", "write-commit-graph", "write-fetch-head"]),
    ("git filter-repo", &["help"]),
    ("git gc", &["aggressive", "auto", "cruft", "detach", "force", "help", "keep-largest-pack", "max-cruft-size", "no-aggressive", "no-auto", "no-cruft", "no-detach", "no-force", "no-keep-largest-pack", "no-prune", "no-quiet", "prune", "quiet"]),
    ("git grep", &["after-context", "all-match", "and", "basic-regexp", "before-context", "break", "cached", "color", "column", "context", "count", "exclude-standard", "ext-grep", "extended-regexp", "files-with-matches", "files-without-match", "fixed-strings", "full-name", "function-context", "heading", "help", "ignore-case", "index", "invert-match", "line-number", "max-count", "max-depth", "name-only", "no-after-context", "no-all-match", "no-basic-regexp", "no-before-context", "no-break", "no-cached", "no-color", "no-column", "no-context", "no-count", "no-exclude-standard", "no-ext-grep", "no-extended-regexp", "no-files-with-matches", "no-files-without-match", "no-fixed-strings", "no-full-name", "no-function-context", "no-heading", "no-ignore-case", "no-index", "no-invert-match", "no-line-number", "no-max-count", "no-name-only", "no-null", "no-only-matching", "no-open-files-in-pager", "no-perl-regexp", "no-quiet", "no-recurse-submodules", "no-recursive", "no-show-function", "no-text", "no-textconv", "no-threads", "no-untracked", "no-word-regexp", "not", "null", "only-matching", "open-files-in-pager", "or", "perl-regexp", "quiet", "recurse-submodules", "recursive", "show-function", "text", "textconv", "threads", "untracked", "word-regexp"]),
    ("git ls-remote", &["branches", "exec", "exit-code", "get-url", "help", "no-branches", "no-exit-code", "no-get-url", "no-quiet", "no-refs", "no-server-option", "no-sort", "no-symref", "no-tags", "no-upload-pack", "quiet", "refs", "server-option", "sort", "symref", "tags", "upload-pack"]),
    ("git merge", &["abort", "allow-unrelated-histories", "autostash", "cleanup", "commit", "continue", "edit", "ff", "ff-only", "file", "gpg-sign", "help", "into-name", "log", "message", "no-abort", "no-allow-unrelated-histories", "no-autostash", "no-cleanup", "no-commit", "no-continue", "no-edit", "no-ff", "no-gpg-sign", "no-into-name", "no-log", "no-message", "no-overwrite-ignore", "no-progress", "no-quiet", "no-quit", "no-rerere-autoupdate", "no-signoff", "no-squash", "no-stat", "no-strategy", "no-strategy-option", "no-summary", "no-verbose", "no-verify", "no-verify-signatures", "overwrite-ignore", "progress", "quiet", "quit", "rerere-autoupdate", "signoff", "squash", "stat", "strategy", "strategy-option", "summary", "verbose", "verify", "verify-signatures"]),
    ("git prune", &["dry-run", "exclude-promisor-objects", "expire", "help", "no-dry-run", "no-exclude-promisor-objects", "no-expire", "no-progress", "no-verbose", "progress", "verbose"]),
    ("git pull", &["all", "allow-unrelated-histories", "append", "autostash", "cleanup", "commit", "deepen", "depth", "dry-run", "edit", "ff", "ff-only", "force", "gpg-sign", "help", "ipv4", "ipv6", "jobs", "keep", "log", "negotiation-tip", "no-all", "no-allow-unrelated-histories", "no-append", "no-autostash", "no-cleanup", "no-commit", "no-deepen", "no-depth", "no-dry-run", "no-edit", "no-ff", "no-force", "no-gpg-sign", "no-ipv4", "no-ipv6", "no-jobs", "no-keep", "no-log", "no-negotiation-tip", "no-progress", "no-prune", "no-quiet", "no-rebase", "no-recurse-submodules", "no-server-option", "no-set-upstream", "no-shallow-exclude", "no-shallow-since", "no-show-forced-updates", "no-signoff", "no-squash", "no-stat", "no-strategy", "no-strategy-option", "no-tags", "no-update-shallow", "no-upload-pack", "no-verbose", "no-verify", "no-verify-signatures", "progress", "prune", "quiet", "rebase", "recurse-submodules", "refmap", "server-option", "set-upstream", "shallow-exclude", "shallow-since", "show-forced-updates", "signoff", "squash", "stat", "strategy", "strategy-option", "tags", "unshallow", "update-shallow", "upload-pack", "verbose", "verify", "verify-signatures"]),
    ("git push", &["all", "atomic", "branches", "delete", "dry-run", "exec", "follow-tags", "force", "force-if-includes", "force-with-lease", "help", "ipv4", "ipv6", "mirror", "no-all", "no-atomic", "no-branches", "no-delete", "no-dry-run", "no-exec", "no-follow-tags", "no-force", "no-force-if-includes", "no-force-with-lease", "no-mirror", "no-porcelain", "no-progress", "no-prune", "no-push-option", "no-quiet", "no-receive-pack", "no-recurse-submodules", "no-repo", "no-set-upstream", "no-signed", "no-tags", "no-thin", "no-verbose", "no-verify", "porcelain", "progress", "prune", "push-option", "quiet", "receive-pack", "recurse-submodules", "repo", "set-upstream", "signed", "tags", "thin", "verbose", "verify"]),
    ("git rebase", &["abort", "apply", "autosquash", "autostash", "committer-date-is-author-date", "continue", "edit-todo", "empty", "exec", "ff", "force-rebase", "fork-point", "gpg-sign", "help", "ignore-whitespace", "interactive", "keep-base", "merge", "no-autosquash", "no-autostash", "no-committer-date-is-author-date", "no-exec", "no-ff", "no-force-rebase", "no-fork-point", "no-gpg-sign", "no-ignore-whitespace", "no-keep-base", "no-onto", "no-quiet", "no-reapply-cherry-picks", "no-rebase-merges", "no-rerere-autoupdate", "no-reschedule-failed-exec", "no-reset-author-date", "no-root", "no-signoff", "no-stat", "no-strategy", "no-strategy-option", "no-update-refs", "no-verbose", "no-verify", "no-whitespace", "onto", "quiet", "quit", "reapply-cherry-picks", "rebase-merges", "rerere-autoupdate", "reschedule-failed-exec", "reset-author-date", "root", "show-current-patch", "signoff", "skip", "stat", "strategy", "strategy-option", "update-refs", "verbose", "verify", "whitespace"]),
    ("git reflog", &["all", "dry-run", "expire", "expire-unreachable", "help", "rewrite", "single-worktree", "stale-fix", "updateref", "verbose"]),
    ("git reset", &["hard", "help", "intent-to-add", "keep", "merge", "mixed", "no-intent-to-add", "no-patch", "no-pathspec-file-nul", "no-pathspec-from-file", "no-quiet", "no-recurse-submodules", "no-refresh", "patch", "pathspec-file-nul", "pathspec-from-file", "quiet", "recurse-submodules", "refresh", "soft"]),
    ("git restore", &["conflict", "help", "ignore-skip-worktree-bits", "ignore-unmerged", "merge", "no-conflict", "no-ignore-skip-worktree-bits", "no-ignore-unmerged", "no-merge", "no-overlay", "no-patch", "no-pathspec-file-nul", "no-pathspec-from-file", "no-progress", "no-quiet", "no-recurse-submodules", "no-source", "no-staged", "no-worktree", "ours", "overlay", "patch", "pathspec-file-nul", "pathspec-from-file", "progress", "quiet", "recurse-submodules", "source", "staged", "theirs", "worktree"]),
    ("git revert", &["abort", "cleanup", "commit", "continue", "edit", "gpg-sign", "help", "mainline", "no-cleanup", "no-commit", "no-edit", "no-gpg-sign", "no-mainline", "no-reference", "no-rerere-autoupdate", "no-signoff", "no-strategy", "no-strategy-option", "quit", "reference", "rerere-autoupdate", "signoff", "skip", "strategy", "strategy-option"]),
    ("git rm", &["cached", "dry-run", "force", "help", "ignore-unmatch", "no-cached", "no-dry-run", "no-force", "no-ignore-unmatch", "no-pathspec-file-nul", "no-pathspec-from-file", "no-quiet", "no-sparse", "pathspec-file-nul", "pathspec-from-file", "quiet", "sparse"]),
    ("git stash", &["all", "help", "include-untracked", "index", "keep-index", "message", "no-keep-index", "only-untracked", "patch", "pathspec-file-nul", "pathspec-from-file", "quiet", "staged"]),
    ("git switch", &["conflict", "create", "detach", "discard-changes", "force", "force-create", "guess", "help", "ignore-other-worktrees", "merge", "no-conflict", "no-create", "no-detach", "no-discard-changes", "no-force", "no-force-create", "no-guess", "no-ignore-other-worktrees", "no-merge", "no-orphan", "no-overwrite-ignore", "no-progress", "no-quiet", "no-recurse-submodules", "no-track", "orphan", "overwrite-ignore", "progress", "quiet", "recurse-submodules", "track"]),
    ("git tag", &["annotate", "cleanup", "color", "column", "contains", "create-reflog", "delete", "edit", "file", "force", "format", "help", "ignore-case", "list", "local-user", "merged", "message", "no-annotate", "no-cleanup", "no-color", "no-column", "no-contains", "no-create-reflog", "no-edit", "no-file", "no-force", "no-format", "no-ignore-case", "no-local-user", "no-merged", "no-omit-empty", "no-points-at", "no-sign", "no-sort", "omit-empty", "points-at", "sign", "sort", "trailer", "verify"]),
    ("git update-ref", &["create-reflog", "deref", "help", "no-create-reflog", "no-deref", "no-stdin", "stdin"]),
    ("git worktree", &["checkout", "detach", "expire", "help", "lock", "orphan", "porcelain", "reason"]),
    ("install", &["backup", "compare", "context", "directory", "group", "help", "mode", "no-target-directory", "owner", "preserve-context", "preserve-timestamps", "strip", "strip-program", "suffix", "target-directory", "verbose", "version"]),
    ("ln", &["backup", "directory", "force", "help", "interactive", "logical", "no-dereference", "no-target-directory", "physical", "relative", "suffix", "symbolic", "target-directory", "verbose", "version"]),
    ("make", &["always-make", "assume-new", "assume-old", "check-symlink-times", "debug", "directory", "dry-run", "environment-overrides", "eval", "file", "help", "ignore-errors", "include-dir", "jobs", "jobserver-auth", "jobserver-fds", "just-print", "keep-going", "load-average", "makefile", "max-load", "new-file", "no-builtin-rules", "no-builtin-variables", "no-keep-going", "no-print-directory", "no-silent", "old-file", "output-sync", "print-data-base", "print-directory", "question", "quiet", "recon", "silent", "stop", "sync-mutex", "touch", "trace", "version", "warn-undefined-variables", "what-if"]),
    ("man", &["all", "apropos", "ascii", "catman", "config-file", "debug", "default", "ditroff", "encoding", "extension", "global-apropos", "gxditview", "help", "html", "ignore-case", "local-file", "locale", "location", "location-cat", "manpath", "match-case", "names-only", "nh", "nj", "no-hyphenation", "no-justification", "no-subpages", "pager", "path", "preprocessor", "prompt", "recode", "regex", "sections", "systems", "troff", "troff-device", "update", "usage", "version", "warnings", "whatis", "where", "where-cat", "wildcard"]),
    ("mdadm", &["action", "add", "add-journal", "add-spare", "alert", "array-size", "assemble", "assume-clean", "auto", "auto-detect", "auto-update-homehost", "backup-file", "bitmap", "bitmap-chunk", "brief", "build", "chunk", "cluster-name", "config", "consistency-policy", "continue", "create", "daemonise", "data-offset", "delay", "detail", "detail-platform", "dump", "examine", "examine-badblocks", "examine-bitmap", "export", "fail", "failfast", "force", "freeze-reshape", "grow", "help", "help-options", "home-cluster", "homehost", "increment", "incremental", "invalid-backup", "kill-subarray", "layout", "level", "mail", "manage", "metadata", "misc", "monitor", "name", "no-degraded", "no-sharing", "nodes", "nofailfast", "offroot", "oneshot", "parity", "pid-file", "prefer", "program", "query", "quiet", "raid-devices", "re-add", "readonly", "readwrite", "rebuild-map", "remove", "replace", "restore", "rounding", "run", "scan", "set-faulty", "size", "sparc2.2", "spare-devices", "stop", "super-minor", "symlinks", "syslog", "test", "update", "update-subarray", "uuid", "verbose", "version", "wait", "wait-clean", "with", "write-behind", "write-journal", "write-mostly", "zero-superblock"]),
    ("mv", &["backup", "context", "force", "help", "interactive", "no-clobber", "no-target-directory", "strip-trailing-slashes", "suffix", "target-directory", "update", "verbose", "version"]),
    ("psql", &["command", "csv", "dbname", "echo-all", "echo-errors", "echo-hidden", "echo-queries", "expanded", "field-separator", "field-separator-zero", "file", "help", "host", "html", "list", "log-file", "no-align", "no-password", "no-psqlrc", "no-readline", "output", "password", "port", "pset", "quiet", "record-separator", "record-separator-zero", "set", "single-line", "single-step", "single-transaction", "table-attr", "tuples-only", "username", "variable", "version"]),
    ("rm", &["dir", "force", "help", "interactive", "no-preserve-root", "one-file-system", "preserve-root", "recursive", "verbose", "version"]),
    ("script", &["append", "command", "echo", "flush", "force", "help", "log-in", "log-io", "log-out", "log-timing", "logging-format", "output-limit", "quiet", "return", "timing", "version"]),
    ("sed", &["binary", "debug", "expression", "file", "follow-symlinks", "help", "in-place", "line-length", "null-data", "posix", "quiet", "regexp-extended", "sandbox", "separate", "silent", "unbuffered", "version", "zero-terminated"]),
    ("shred", &["exact", "force", "help", "iterations", "random-source", "remove", "size", "verbose", "version", "zero"]),
    ("split", &["additional-suffix", "bytes", "elide-empty-files", "filter", "help", "hex-suffixes", "line-bytes", "lines", "number", "numeric-suffixes", "separator", "suffix-length", "unbuffered", "verbose", "version"]),
    ("tar", &["HANG", "absolute-names", "acls", "add-file", "after-date", "anchored", "append", "atime-preserve", "auto-compress", "backup", "block-number", "blocking-factor", "bzip2", "catenate", "check-device", "check-links", "checkpoint", "checkpoint-action", "clamp-mtime", "compare", "compress", "concatenate", "confirmation", "create", "delay-directory-restore", "delete", "dereference", "diff", "directory", "exclude", "exclude-backups", "exclude-caches", "exclude-caches-all", "exclude-caches-under", "exclude-from", "exclude-ignore", "exclude-ignore-recursive", "exclude-tag", "exclude-tag-all", "exclude-tag-under", "exclude-vcs", "exclude-vcs-ignores", "extract", "file", "files-from", "force-local", "format", "full-time", "get", "group", "group-map", "gunzip", "gzip", "hard-dereference", "help", "hole-detection", "ignore-case", "ignore-command-error", "ignore-failed-read", "ignore-zeros", "incremental", "index-file", "info-script", "interactive", "keep-directory-symlink", "keep-newer-files", "keep-old-files", "label", "level", "list", "listed-incremental", "lzip", "lzma", "lzop", "mode", "mtime", "multi-volume", "new-volume-script", "newer", "newer-mtime", "no-acls", "no-anchored", "no-auto-compress", "no-check-device", "no-delay-directory-restore", "no-ignore-case", "no-ignore-command-error", "no-null", "no-overwrite-dir", "no-quote-chars", "no-recursion", "no-same-owner", "no-same-permissions", "no-seek", "no-selinux", "no-unquote", "no-verbatim-files-from", "no-wildcards", "no-wildcards-match-slash", "no-xattrs", "null", "numeric-owner", "occurrence", "old-archive", "one-file-system", "one-top-level", "overwrite", "overwrite-dir", "owner", "owner-map", "pax-option", "portability", "posix", "preserve-order", "preserve-permissions", "program-name", "quote-chars", "quoting-style", "read-full-records", "record-size", "recursion", "recursive-unlink", "remove-files", "restrict", "rmt-command", "rsh-command", "same-order", "same-owner", "same-permissions", "seek", "selinux", "show-defaults", "show-omitted-dirs", "show-snapshot-field-ranges", "show-stored-names", "show-transformed-names", "skip-old-files", "sort", "sparse", "sparse-version", "starting-file", "strip-components", "suffix", "tape-length", "test-label", "to-command", "to-stdout", "totals", "touch", "transform", "uncompress", "ungzip", "unlink-first", "unquote", "update", "usage", "use-compress-program", "utc", "verbatim-files-from", "verbose", "verify", "version", "volno-file", "warning", "wildcards", "wildcards-match-slash", "xattrs", "xattrs-exclude", "xattrs-include", "xform", "xz", "zstd"]),
    ("truncate", &["help", "io-blocks", "no-create", "reference", "size", "version"]),
    ("wget", &["accept", "accept-regex", "adjust-extension", "append-output", "ask-password", "auth-no-challenge", "background", "backup-converted", "backups", "base", "bind-address", "body-data", "body-file", "ca-certificate", "ca-directory", "cache", "certificate", "certificate-type", "check-certificate", "ciphers", "clobber", "compression", "config", "connect-timeout", "content-disposition", "content-on-error", "continue", "convert-file-only", "convert-links", "cookies", "crl-file", "cut-dirs", "debug", "default-page", "delete-after", "directories", "directory-prefix", "dns-cache", "dns-timeout", "domains", "dont-remove-listing", "dot-style", "egd-file", "exclude-directories", "exclude-domains", "execute", "follow-ftp", "follow-tags", "force-directories", "force-html", "ftp-password", "ftp-user", "ftps-clear-data-connection", "ftps-fallback-to-ftp", "ftps-implicit", "ftps-resume-ssl", "glob", "header", "help", "host-directories", "hsts-file", "html-extension", "htmlify", "http-keep-alive", "http-passwd", "http-password", "http-user", "https-only", "if-modified-since", "ignore-case", "ignore-length", "ignore-tags", "include-directories", "inet4-only", "inet6-only", "input-file", "keep-badhash", "keep-session-cookies", "level", "limit-rate", "load-cookies", "local-encoding", "max-redirect", "method", "mirror", "netrc", "no-adjust-extension", "no-ask-password", "no-auth-no-challenge", "no-background", "no-backup-converted", "no-backups", "no-cache", "no-check-certificate", "no-clobber", "no-config", "no-content-disposition", "no-content-on-error", "no-continue", "no-convert-file-only", "no-convert-links", "no-cookies", "no-debug", "no-delete-after", "no-directories", "no-dns-cache", "no-follow-ftp", "no-force-directories", "no-force-html", "no-ftps-clear-data-connection", "no-ftps-fallback-to-ftp", "no-ftps-implicit", "no-ftps-resume-ssl", "no-glob", "no-host-directories", "no-hsts", "no-html-extension", "no-htmlify", "no-http-keep-alive", "no-https-only", "no-if-modified-since", "no-ignore-case", "no-ignore-length", "no-inet4-only", "no-inet6-only", "no-iri", "no-keep-badhash", "no-keep-session-cookies", "no-mirror", "no-netrc", "no-no-clobber", "no-no-config", "no-no-parent", "no-page-requisites", "no-parent", "no-passive-ftp", "no-preserve-permissions", "no-protocol-directories", "no-proxy", "no-quiet", "no-random-wait", "no-recursive", "no-relative", "no-remove-listing", "no-report-speed", "no-restrict-file-names", "no-retr-symlinks", "no-retry-connrefused", "no-retry-on-host-error", "no-save-headers", "no-server-response", "no-show-progress", "no-span-hosts", "no-spider", "no-strict-comments", "no-timestamping", "no-trust-server-names", "no-unlink", "no-use-server-timestamps", "no-verbose", "no-warc-cdx", "no-warc-compression", "no-warc-digests", "no-warc-keep-log", "no-xattr", "output-document", "output-file", "page-requisites", "parent", "passive-ftp", "password", "pinnedpubkey", "post-data", "post-file", "prefer-family", "preserve-permissions", "private-key", "private-key-type", "progress", "protocol-directories", "proxy", "proxy-passwd", "proxy-password", "proxy-user", "quiet", "quota", "random-file", "random-wait", "read-timeout", "recursive", "referer", "regex-type", "reject", "reject-regex", "rejected-log", "relative", "remote-encoding", "remove-listing", "report-speed", "restrict-file-names", "retr-symlinks", "retry-connrefused", "retry-on-host-error", "retry-on-http-error", "save-cookies", "save-headers", "secure-protocol", "server-response", "show-progress", "span-hosts", "spider", "start-pos", "strict-comments", "timeout", "timestamping", "tries", "trust-server-names", "unlink", "use-askpass", "use-server-timestamps", "user", "user-agent", "verbose", "version", "wait", "waitretry", "warc-cdx", "warc-compression", "warc-dedup", "warc-digests", "warc-file", "warc-header", "warc-keep-log", "warc-max-size", "warc-tempdir", "xattr"]),
    ("wipefs", &["all", "backup", "force", "help", "json", "lock", "no-act", "noheadings", "offset", "output", "parsable", "quiet", "types", "version"]),
    ("zip", &["adjust-sfx", "archive-comment", "before-date", "compress-1", "compress-2", "compress-3", "compress-4", "compress-5", "compress-6", "compress-7", "compress-8", "compress-9", "compression-method", "copy", "copy-entries", "delete", "dif", "difference-archive", "display-bytes", "display-counts", "display-dots", "display-globaldots", "display-usize", "display-volume", "dot-size", "encrypt", "entry-comments", "exclude", "filesync", "fixfix", "force-descriptors", "force-zip64", "freshen", "from-crlf", "from-date", "grow", "include", "junk-paths", "junk-sfx", "latest-time", "log-append", "log-info", "logfile-path", "more-help", "move", "must-match", "names-stdin", "no-dir-entries", "no-wild", "out", "output-file", "password", "quiet", "recurse-paths", "recurse-patterns", "regex", "show-command", "show-debug", "show-files", "show-just-unicode", "show-options", "show-unicode", "split-bell", "split-pause", "split-size", "split-verbose", "strip-extra", "suffixes", "symlinks", "temp-path", "test", "to-crlf", "unzip-command", "update", "version", "wild-stop-dirs"]),
];

/// The full name (without `--`) of the long option `name` (without `--`) of
/// `program` (`sub`: its subcommand, for git), when `name` is an unambiguous
/// prefix of exactly one of its options; `None` when `name` is an option
/// itself, is not a prefix of one, is ambiguous, or the program is not known.
#[must_use]
pub(super) fn full_name(program: &str, sub: Option<&str>, name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return None;
    }
    let options = options_of(program, sub)?;
    if options.contains(&name) {
        return None;
    }
    let mut found = options.iter().filter(|o| o.starts_with(name));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// `arg` with its long option written out (`--use-compress-prog=X` is
/// `--use-compress-program=X`) when it abbreviates one of `program`'s (see
/// [`full_name`]); `None` when it is no such abbreviation.
#[must_use]
pub(super) fn written_out(program: &str, sub: Option<&str>, arg: &str) -> Option<String> {
    let long = arg.strip_prefix("--")?;
    let name = long.split('=').next().unwrap_or_default();
    let full = full_name(program, sub, name)?;
    Some(format!("--{full}{}", &long[name.len()..]))
}

fn options_of(program: &str, sub: Option<&str>) -> Option<&'static [&'static str]> {
    let program = program.to_ascii_lowercase();
    let key = if program == "git" {
        format!("git {}", sub?)
    } else {
        program
    };
    TABLE
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, options)| *options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unambiguous_prefixes_are_the_option_they_stand_for() {
        assert_eq!(full_name("rm", None, "recur"), Some("recursive"));
        assert_eq!(full_name("RM", None, "f"), Some("force"));
        assert_eq!(full_name("rm", None, "no-pres"), Some("no-preserve-root"));
        assert_eq!(full_name("git", Some("reset"), "har"), Some("hard"));
        assert_eq!(
            full_name("git", Some("commit"), "no-verif"),
            Some("no-verify")
        );
        assert_eq!(
            full_name("git", Some("push"), "force-with"),
            Some("force-with-lease")
        );
        assert_eq!(full_name("mdadm", None, "zero"), Some("zero-superblock"));
        assert_eq!(full_name("tar", None, "remove-f"), Some("remove-files"));
        // As curl 7.88.1 and wget 1.21.3 resolve them (each tried here).
        assert_eq!(full_name("curl", None, "upload-f"), Some("upload-file"));
        assert_eq!(full_name("curl", None, "output-d"), Some("output-dir"));
        assert_eq!(full_name("wget", None, "output-d"), Some("output-document"));
        assert_eq!(full_name("wget", None, "post-fi"), Some("post-file"));
        // Options that take code, as the real tools resolve them (each tried).
        assert_eq!(
            full_name("tar", None, "use-compress-prog"),
            Some("use-compress-program")
        );
        assert_eq!(full_name("tar", None, "to-comm"), Some("to-command"));
        assert_eq!(
            full_name("tar", None, "checkpoint-act"),
            Some("checkpoint-action")
        );
        assert_eq!(full_name("zip", None, "unzip-com"), Some("unzip-command"));
        assert_eq!(
            full_name("git", Some("ls-remote"), "upload-p"),
            Some("upload-pack")
        );
        assert_eq!(full_name("gdb", None, "eval-c"), Some("eval-command"));
    }

    #[test]
    fn prefixes_the_tools_refuse_stay_as_written() {
        // `curl --outp`: output or output-dir; `wget --outp`: output-document
        // or output-file; `git push --forc`: force, force-with-lease, …
        assert_eq!(full_name("curl", None, "outp"), None);
        assert_eq!(full_name("wget", None, "outp"), None);
        assert_eq!(full_name("git", Some("push"), "forc"), None);
        // curl's hidden `--ftp-ssl` is an option of its own.
        assert_eq!(full_name("curl", None, "ftp-ssl"), None);
    }

    #[test]
    fn exact_ambiguous_and_unknown_names_stay_as_written() {
        assert_eq!(full_name("rm", None, "force"), None, "exact");
        assert_eq!(
            full_name("git", Some("push"), "force"),
            None,
            "exact wins over force-with-lease"
        );
        assert_eq!(
            full_name("git", Some("push"), "f"),
            None,
            "ambiguous: follow-tags, force, …"
        );
        assert_eq!(full_name("rm", None, "x"), None, "no such option");
        assert_eq!(
            full_name("kubectl", None, "al"),
            None,
            "not a getopt program"
        );
        assert_eq!(full_name("git", None, "har"), None, "no subcommand");
    }
}
