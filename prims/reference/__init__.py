"""Reference implementations of the prims that are not one torch call, one module per family
(``reference/<family>.py``; the elementwise families share ``reference/elementwise.py``), named
in the catalog as ``reference.<module>.<function>``.

Each returns its prim's values. Where the entry has a ``layout``, registration lays the results out
(prims/registration.py); otherwise the function lays them out itself with torch's own ops, never
with the meta rules' helpers, so that comparing the two checks the meta rule.
"""
