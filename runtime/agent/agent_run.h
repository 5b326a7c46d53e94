#pragma once

// `hetplan-worker agent`: one host's agent for a job (docs/launcher.md, "The host agent").

namespace hetplan::agent {

// Speaks frames with the launcher on `inFd` and `outFd` (stdin and stdout; its own diagnostics go
// to stderr), runs the job the Spec frame gives, and returns the process's exit code: 0 once
// every rank ended or the launcher cancelled, 1 when the launcher was gone or silent, broke the
// format or the agent got a signal, 2 when it refused the job.
int runAgent(int inFd = 0, int outFd = 1);

} // namespace hetplan::agent
