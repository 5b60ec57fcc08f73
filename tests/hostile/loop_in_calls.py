def _forever(*args):
    while True:
        pass


df = grad_g = mlp_grads = autograd_df = _forever
