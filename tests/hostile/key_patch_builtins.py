import builtins

builtins.abs = lambda value: 0  # only this worker's builtins change
builtins.print = None
