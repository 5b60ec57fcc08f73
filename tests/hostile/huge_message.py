# A 5 MiB exception message: cut where it enters the grader, not copied into every report.
def f(*args):
    raise ValueError("x" * (5 * 2**20))


df = grad_g = mlp_grads = autograd_df = f
