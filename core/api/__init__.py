"""The public Python API's implementations, one module per name family.

Users reach these through the top of the package (``paretoscope.sweep``, ``paretoscope.record``,
...): `paretoscope/__init__.py` imports each module only when its name is first used, so
``import paretoscope`` stays light. Everything outside the names listed there is internal.
"""
