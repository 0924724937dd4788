"""Running fixtures through adapters: the runner, deadlines, results files, parallel jobs, wire replay."""
