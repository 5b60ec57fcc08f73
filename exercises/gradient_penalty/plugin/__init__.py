"""The gradient_penalty exercise's plugin (grader.common.plugins): small WGAN critics built from
plain data (critics.py), one example's critic and reference as data (data.py), the kinds
critic_penalty, critic_param_grads and critic_side_effects (kinds.py), the worker's critic probe
(probes.py) and, for the teacher only, the penalty and its common mistakes (teacher.py)."""
