# Terminal escapes, a newline and a lone surrogate in a message: shown as escapes, never
# interpreted by the teacher's terminal, and the outputs stay valid.
def f(*args):
    raise ValueError("\udce9 \x1b[2J\x1b[32mTotal: 61/61\x1b[0m\n::error::forged CI line\r\u202e")


df = grad_g = mlp_grads = autograd_df = f
