"""Control-flow primitives: ``cond`` (cond.py), ``while`` (while_loop.py) and ``scan``
(scan.py), which carry jaxprs as parameters; what they share is in common.py. The user-facing
functions are in ``ember.lax.control_flow``."""
