import torch


def load_model(width, use_fp16=False):
    model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.SiLU(),
                                torch.nn.Linear(width, width))
    options = {"width": width, "use_fp16": use_fp16}
    if use_fp16:
        model.half()
    return model, options
