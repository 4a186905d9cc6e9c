"""The commands of the command line, one module per command; xlmodel.cli keeps the parser and the dispatch."""
