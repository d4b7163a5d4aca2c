"""The embedded engine: the Soufflé dialect translated to clingo and evaluated by its grounder.

`translate` (clauses to rules) · `facts` (input relations to facts) · `run` (ground, solve) ·
`model` (the answer set back to typed rows).
"""
