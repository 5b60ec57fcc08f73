"""The nan_debugging exercise's plugin (grader.common.plugins): recipes of test functions sent
as data (recipes.py), the fixed training loop (training.py), their kinds (kinds.py: nan_source,
anomaly_restored, training_run), the worker's probes (probes.py: anomaly, train) and, for the
teacher only, what torch's anomaly detection names (teacher.py)."""
