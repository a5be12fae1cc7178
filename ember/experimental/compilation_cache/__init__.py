"""``ember.experimental.compilation_cache`` (JAX's module of that name): the persistent
compilation cache's directory, in its ``compilation_cache`` submodule."""
