"""The shipped conformance suite's asserts show their values on failure (before balancer.testing is imported)."""

import pytest

pytest.register_assert_rewrite("balancer.testing")
