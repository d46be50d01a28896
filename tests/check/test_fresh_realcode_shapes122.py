"""Shapes seen in the fresh-2026-12zzu120 batch (rcnew120, bench/realcode/README.md): an
untargeted sample of training code from speech, video, remote sensing, medical segmentation,
cell imaging, music and QLoRA fine-tuning repositories.

Programs written for these tests; no third-party code.

One miss of the batch, fixed (LRD004): an LSTM speech recogniser whose epoch function keeps
``ave_loss = incremental_average(ave_loss, loss.item(), n)`` after each ``loss.backward()`` and
ends with ``scheduler.step(ave_loss)`` on a ReduceLROnPlateau, while the caller validates
every epoch. The rule knew a training loss by its name (``train_loss``, ``running_loss``), by a
copy of the backpropagated loss, by a meter or by a function that returns its sum; a running
figure folded through a helper of its own (a running mean, a moving average, a sum divided by
a count) under another name was not one. A name that the function around the step only starts
from a literal and then folds the number of the loss it has just backpropagated into its own
previous value is now the training loss, whatever it is called. A figure folded from a loss
computed anew without backward (a validation pass reusing ``loss``), from a value that is
never backpropagated, or rebound to anything else stays unjudged.
"""

from __future__ import annotations

import pytest

from .helpers import findings

RUNNING_MEAN_HELPER_IN_TRAINING_PASS = """
import torch
from torch import nn, optim


def running_mean(mean, value, count):
    if mean is None:
        return value
    return mean + (value - mean) / count


def fit_one_pass(net, batches, opt, plateau):
    net.train()
    smoothed = None
    for k, (x, y) in enumerate(batches):
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        smoothed = running_mean(smoothed, loss.item(), k + 1)
    plateau.step(smoothed)
    return smoothed


def score(net, batches):
    net.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in batches:
            total += nn.functional.mse_loss(net(x), y).item()
    return total / len(batches)


def main():
    net = nn.Linear(4, 1)
    opt = optim.Adam(net.parameters(), lr=1e-3)
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2)
    train = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(5)]
    held = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)]
    for epoch in range(10):
        fit_one_pass(net, train, opt, plateau)
        val_loss = score(net, held)
        print(epoch, val_loss)


if __name__ == "__main__":
    main()
"""

RUNNING_MEAN_HELPER_IN_VALIDATION_PASS = """
import torch
from torch import nn, optim


def running_mean(mean, value, count):
    if mean is None:
        return value
    return mean + (value - mean) / count


def fit_one_pass(net, batches, opt):
    net.train()
    for x, y in batches:
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()


def score(net, batches, plateau):
    net.eval()
    smoothed = None
    with torch.no_grad():
        for k, (x, y) in enumerate(batches):
            loss = nn.functional.mse_loss(net(x), y)
            smoothed = running_mean(smoothed, loss.item(), k + 1)
    plateau.step(smoothed)
    return smoothed


def main():
    net = nn.Linear(4, 1)
    opt = optim.Adam(net.parameters(), lr=1e-3)
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2)
    train = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(5)]
    held = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)]
    for epoch in range(10):
        fit_one_pass(net, train, opt)
        val_loss = score(net, held, plateau)
        print(epoch, val_loss)


if __name__ == "__main__":
    main()
"""

MOVING_AVERAGE_OF_TRAINING_LOSS = """
import torch
from torch import nn, optim


def validate(net, data):
    net.eval()
    with torch.no_grad():
        return sum(nn.functional.l1_loss(net(x), y).item() for x, y in data) / len(data)


def run(net, train, held, epochs=20):
    opt = optim.SGD(net.parameters(), lr=0.1)
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
    for epoch in range(epochs):
        net.train()
        trend = 0.0
        for x, y in train:
            opt.zero_grad()
            err = nn.functional.l1_loss(net(x), y)
            err.backward()
            opt.step()
            trend = 0.98 * trend + 0.02 * err.item()
        dev_score = validate(net, held)
        print(epoch, trend, dev_score)
        plateau.step(trend)


if __name__ == "__main__":
    run(nn.Linear(3, 1), [(torch.randn(4, 3), torch.randn(4, 1))] * 4,
        [(torch.randn(4, 3), torch.randn(4, 1))] * 2)
"""

VALIDATION_PASS_REUSING_THE_LOSS_NAME = """
import torch
from torch import nn, optim


def blend(old, new, k):
    return new if old is None else old + (new - old) / k


def epoch_pass(net, train, held, opt, plateau):
    net.train()
    for x, y in train:
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
    net.eval()
    val_running = None
    with torch.no_grad():
        for k, (x, y) in enumerate(held, 1):
            loss = nn.functional.mse_loss(net(x), y)
            val_running = blend(val_running, loss.item(), k)
    plateau.step(val_running)


def main():
    net = nn.Linear(3, 1)
    opt = optim.Adam(net.parameters())
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt)
    train = [(torch.randn(4, 3), torch.randn(4, 1))] * 4
    held = [(torch.randn(4, 3), torch.randn(4, 1))] * 2
    for _ in range(5):
        epoch_pass(net, train, held, opt, plateau)


if __name__ == "__main__":
    main()
"""

RUNNING_TRAINING_LOSS_WITHOUT_VALIDATION = """
import torch
from torch import nn, optim


def running_mean(mean, value, count):
    return value if mean is None else mean + (value - mean) / count


def main():
    net = nn.Linear(3, 1)
    opt = optim.Adam(net.parameters())
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt)
    data = [(torch.randn(4, 3), torch.randn(4, 1))] * 8
    for epoch in range(30):
        avg = None
        for k, (x, y) in enumerate(data, 1):
            opt.zero_grad()
            loss = nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            avg = running_mean(avg, loss.item(), k)
        plateau.step(avg)


if __name__ == "__main__":
    main()
"""

FIGURE_REBOUND_TO_A_VALIDATION_SCORE = """
import torch
from torch import nn, optim


def running_mean(mean, value, count):
    return value if mean is None else mean + (value - mean) / count


def evaluate(net, data):
    with torch.no_grad():
        return sum(nn.functional.mse_loss(net(x), y).item() for x, y in data) / len(data)


def main(use_holdout=True):
    net = nn.Linear(3, 1)
    opt = optim.Adam(net.parameters())
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt)
    data = [(torch.randn(4, 3), torch.randn(4, 1))] * 8
    held = [(torch.randn(4, 3), torch.randn(4, 1))] * 2
    for epoch in range(30):
        watched = None
        for k, (x, y) in enumerate(data, 1):
            opt.zero_grad()
            loss = nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            watched = running_mean(watched, loss.item(), k)
        if use_holdout:
            watched = evaluate(net, held)
        plateau.step(watched)


if __name__ == "__main__":
    main()
"""

SUM_OVER_COUNT_OF_TRAINING_LOSS = """
import torch
from torch import nn, optim


def check(net, data):
    net.eval()
    with torch.no_grad():
        return sum(nn.functional.mse_loss(net(x), y).item() for x, y in data)


def main():
    net = nn.Linear(3, 1)
    opt = optim.Adam(net.parameters())
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2)
    data = [(torch.randn(4, 3), torch.randn(4, 1))] * 8
    held = [(torch.randn(4, 3), torch.randn(4, 1))] * 2
    for epoch in range(30):
        acc_err = 0.0
        for x, y in data:
            opt.zero_grad()
            objective = nn.functional.mse_loss(net(x), y)
            objective.backward()
            opt.step()
            acc_err = acc_err + objective.item()
        val_mse = check(net, held)
        print(val_mse)
        plateau.step(acc_err / len(data))


if __name__ == "__main__":
    main()
"""

RUNNING_FIGURE_OF_A_VALUE_NOT_BACKPROPAGATED = """
import torch
from torch import nn, optim


def running_mean(mean, value, count):
    return value if mean is None else mean + (value - mean) / count


def score(net, held):
    with torch.no_grad():
        return sum(nn.functional.mse_loss(net(x), y).item() for x, y in held)


def main():
    net = nn.Linear(3, 1)
    opt = optim.Adam(net.parameters())
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max")
    data = [(torch.randn(4, 3), torch.randn(4, 1))] * 8
    held = [(torch.randn(4, 3), torch.randn(4, 1))] * 2
    for epoch in range(30):
        gap = None
        for k, (x, y) in enumerate(data, 1):
            opt.zero_grad()
            loss = nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            with torch.no_grad():
                margin = (net(x) - y).abs().mean()
            gap = running_mean(gap, margin.item(), k)
        val_loss = score(net, held)
        print(val_loss)
        plateau.step(gap)


if __name__ == "__main__":
    main()
"""

INLINE_RUNNING_MEAN_OF_TRAINING_LOSS = """
import torch
from torch import nn

def fold(stats, key, value, n):
    stats[key] = stats.get(key, 0.0) + (value - stats.get(key, 0.0)) / n
    return stats

def main():
    model = nn.Linear(5, 1)
    opt = torch.optim.Adam(model.parameters())
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)
    tr = [(torch.randn(4, 5), torch.randn(4, 1))] * 4
    va = [(torch.randn(4, 5), torch.randn(4, 1))] * 2
    for epoch in range(30):
        running = None
        for n, (x, y) in enumerate(tr, 1):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            running = loss.item() if running is None else running + (loss.item() - running) / n
        with torch.no_grad():
            val_loss = sum(nn.functional.mse_loss(model(x), y).item() for x, y in va)
        print(val_loss)
        sched.step(running)

main()
"""

INLINE_RUNNING_MEAN_BESIDE_A_VALIDATION_STEP = """
import torch
from torch import nn

def fold(stats, key, value, n):
    stats[key] = stats.get(key, 0.0) + (value - stats.get(key, 0.0)) / n
    return stats

def main():
    model = nn.Linear(5, 1)
    opt = torch.optim.Adam(model.parameters())
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)
    tr = [(torch.randn(4, 5), torch.randn(4, 1))] * 4
    va = [(torch.randn(4, 5), torch.randn(4, 1))] * 2
    for epoch in range(30):
        running = None
        for n, (x, y) in enumerate(tr, 1):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            running = loss.item() if running is None else running + (loss.item() - running) / n
        with torch.no_grad():
            val_loss = sum(nn.functional.mse_loss(model(x), y).item() for x, y in va)
        print(val_loss)
        sched.step(val_loss)

main()
"""


@pytest.mark.parametrize(("source", "expected"), [
    pytest.param(RUNNING_MEAN_HELPER_IN_TRAINING_PASS, [("LRD004", 21)], id="running_mean_helper_in_training_pass"),
    pytest.param(RUNNING_MEAN_HELPER_IN_VALIDATION_PASS, [], id="running_mean_helper_in_validation_pass"),
    pytest.param(MOVING_AVERAGE_OF_TRAINING_LOSS, [("LRD004", 26)], id="moving_average_of_training_loss"),
    pytest.param(VALIDATION_PASS_REUSING_THE_LOSS_NAME, [], id="validation_pass_reusing_the_loss_name"),
    pytest.param(RUNNING_TRAINING_LOSS_WITHOUT_VALIDATION, [], id="running_training_loss_without_validation"),
    pytest.param(FIGURE_REBOUND_TO_A_VALIDATION_SCORE, [], id="figure_rebound_to_a_validation_score"),
    pytest.param(SUM_OVER_COUNT_OF_TRAINING_LOSS, [("LRD004", 28)], id="sum_over_count_of_training_loss"),
    pytest.param(RUNNING_FIGURE_OF_A_VALUE_NOT_BACKPROPAGATED, [], id="running_figure_of_a_value_not_backpropagated"),
    pytest.param(INLINE_RUNNING_MEAN_OF_TRAINING_LOSS, [("LRD004", 26)], id="inline_running_mean_of_training_loss"),
    pytest.param(INLINE_RUNNING_MEAN_BESIDE_A_VALIDATION_STEP, [], id="inline_running_mean_beside_a_validation_step"),
])
def test_running_figure_of_the_training_loss(source: str, expected: list) -> None:
    assert [f for f in findings(source) if f[0] == "LRD004"] == expected
