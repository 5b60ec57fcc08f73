def df(x):
    raise SystemExit(3)


grad_g = mlp_grads = autograd_df = df
