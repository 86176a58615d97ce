"""Pacing: a server's few rendering workers shared fairly by live streams, tasks and idle work
(`scheduler`: who renders next, pure; `gate`: the same for threads)."""
