"""Monte Carlo tree search: solvers, tree, selection rules, results."""
