"""The rules: expression trees, their code generation, compiled (numpy) rules, the catalogue of rules, consistency checks, the reference array environment."""
