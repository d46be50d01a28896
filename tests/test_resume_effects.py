"""What a resume does to a schedule whose scheduler state was lost while the optimizer's state
was restored, checked against torch itself. LRD007's messages (`lrdoctor check`, `lrdoctor
run`) say it with `schedulers.resumed_without_state`; each claim that function makes is run
here: train 5 steps, save the optimizer only, rebuild both, load the optimizer, go on."""

from __future__ import annotations

import math
import warnings

import pytest

from lrdoctor.schedulers import RESTARTS, RESUME_UNMOVED, resumed_without_state

torch = pytest.importorskip("torch")
S = torch.optim.lr_scheduler


def lrs(build, steps: int = 5, after: int = 14) -> tuple[list[float], list[float]]:
    """The LRs of the run that went on (uninterrupted) and of the run resumed at ``steps``
    from the optimizer's state alone, for ``after`` steps past the resume."""
    warnings.simplefilter("ignore", UserWarning)

    def fresh():
        opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        return opt, build(opt)

    opt, sched = fresh()
    for _ in range(steps):
        opt.step()
        sched.step()
    saved = opt.state_dict()
    opt2, sched2 = fresh()
    opt2.load_state_dict(saved)
    went_on, resumed = [opt.param_groups[0]["lr"]], [opt2.param_groups[0]["lr"]]
    for _ in range(after):
        opt.step()
        sched.step()
        opt2.step()
        sched2.step()
        went_on.append(opt.param_groups[0]["lr"])
        resumed.append(opt2.param_groups[0]["lr"])
    return went_on, resumed


def test_exponential_goes_on_exactly_so_nothing_is_said() -> None:
    went_on, resumed = lrs(lambda o: S.ExponentialLR(o, gamma=0.5))
    assert resumed == pytest.approx(went_on)
    assert "ExponentialLR" in RESUME_UNMOVED


def test_closed_form_schedules_go_back_to_their_first_value() -> None:
    for build in (lambda o: S.LambdaLR(o, lambda e: 0.9 ** e),
                  lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=30),
                  lambda o: S.CosineAnnealingWarmRestarts(o, T_0=8)):
        _, first = lrs(build, steps=0, after=3)
        _, resumed = lrs(build, after=3)
        assert resumed[1:] == pytest.approx(first[1:])
    assert RESTARTS == "the schedule restarts from its first value"
    for cls in ("LambdaLR", "OneCycleLR", "CyclicLR", "CosineAnnealingWarmRestarts", "MyOwn"):
        assert resumed_without_state(cls) is None  # closed form: RESTARTS


def test_steplr_keeps_the_lr_and_decays_up_to_step_size_late() -> None:
    went_on, resumed = lrs(lambda o: S.StepLR(o, step_size=3, gamma=0.1))
    assert resumed[0] == went_on[0] == pytest.approx(0.1)  # the LR came back
    assert went_on[1] == pytest.approx(0.01)  # planned: the decay at step 6
    assert resumed[1:3] == pytest.approx([0.1, 0.1]) and resumed[3] == pytest.approx(0.01)
    text = resumed_without_state("StepLR", {"step_size": "3"})
    assert "comes back with the optimizer" in text and "`step_size` (`3`) steps late" in text


def test_multisteplr_decays_again_at_milestones_already_passed() -> None:
    went_on, resumed = lrs(lambda o: S.MultiStepLR(o, milestones=[2, 4, 7], gamma=0.1))
    assert resumed[0] == pytest.approx(0.01)
    assert min(resumed) == pytest.approx(1e-5) and min(went_on) == pytest.approx(1e-3)
    assert "milestones already passed decay the LR again" in resumed_without_state("MultiStepLR")


def test_cosine_bends_a_new_cosine_from_the_restored_lr() -> None:
    went_on, resumed = lrs(lambda o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.1))
    assert resumed[0] == pytest.approx(0.55)  # the restored LR, not the first value 1.0
    assert resumed[10] == pytest.approx(0.1)  # the floor T_max steps after the resume
    assert went_on[5] == pytest.approx(0.1)  # where the plan reached it
    assert "decays over `T_max` (`10`) steps again" in resumed_without_state(
        "CosineAnnealingLR", {"T_max": "10"})


def test_polynomial_decays_over_total_iters_again() -> None:
    went_on, resumed = lrs(lambda o: S.PolynomialLR(o, total_iters=10, power=1.0))
    assert resumed[0] == pytest.approx(0.5) and went_on[5] == pytest.approx(0.0)
    assert resumed[5] == pytest.approx(0.25) and resumed[10] == pytest.approx(0.0)
    assert "over `total_iters`" in resumed_without_state("PolynomialLR")


def test_linear_warm_up_ends_end_over_start_times_above_the_plan() -> None:
    went_on, resumed = lrs(lambda o: S.LinearLR(o, start_factor=0.1, total_iters=8))
    assert went_on[-1] == pytest.approx(1.0)
    assert resumed[-1] == pytest.approx(resumed[0] * 10)  # end_factor / start_factor
    assert resumed[-1] > 6 * went_on[-1]
    assert "end_factor / start_factor" in resumed_without_state("LinearLR")


def test_constant_resumed_after_its_phase_ends_above_the_plan() -> None:
    went_on, resumed = lrs(lambda o: S.ConstantLR(o, factor=0.5, total_iters=4), steps=6)
    assert went_on[-1] == pytest.approx(1.0)
    assert resumed[-1] == pytest.approx(2.0)  # divided by factor once more
    assert "1/factor times above the plan" in resumed_without_state("ConstantLR")
    assert math.isclose(resumed[0], 1.0)
