import time as _time

_fast_df = df


def df(x):  # correct, but seconds per call
    _time.sleep(3)
    return _fast_df(x)
