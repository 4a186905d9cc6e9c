"""Plans: the policy schema and loading, plan folders, the clauses of a plan's text."""
