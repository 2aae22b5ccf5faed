"""kfront.cuda.launchconfig — numba-cuda 0.30's numba.cuda.launchconfig: the launch configuration of the kernel
launch whose compilation is under way on this thread, for the Python code numba runs while it compiles (its
typing and lowering extensions). kfront compiles in its C library and runs no user code while it does, so at
every point Python code can ask there is no such launch: current_launch_config() is None, as it is in
numba-cuda outside a compilation, and ensure_current_launch_config() raises its RuntimeError."""


def current_launch_config():
    """The launch configuration of the compilation under way on this thread: None (see the module's text)."""
    return None


def ensure_current_launch_config():
    """current_launch_config(), or RuntimeError where there is none."""
    config = current_launch_config()
    if config is None:
        raise RuntimeError("No launch config set for this thread")
    return config


__all__ = ["current_launch_config", "ensure_current_launch_config"]
