"""A small two-stage detector written for these tests in torchvision's style (not vendored): its
forward reaches the vendored ops of torchvision and timm from several call sites, some passing
Python numbers and some tensors, so their facts depend on every caller."""

import torch
from timm.layers.pos_embed import resample_abs_pos_embed
from torch import Tensor, nn
from torchvision.ops import boxes as box_ops
from torchvision.ops.boxes import batched_nms, box_iou, clip_boxes_to_image, remove_small_boxes
from torchvision.ops.poolers import MultiScaleRoIAlign


class BoxHead(nn.Module):
    def __init__(self, in_channels: int, num_classes: int) -> None:
        super().__init__()
        self.cls_logits = nn.Linear(in_channels, num_classes)
        self.bbox_pred = nn.Linear(in_channels, 4)

    def forward(self, features: Tensor) -> tuple[Tensor, Tensor]:
        flat = features.flatten(1)
        return self.cls_logits(flat), self.bbox_pred(flat)


class TinyDetector(nn.Module):
    def __init__(self, num_classes: int = 3, score_thresh: float = 0.05, nms_thresh: float = 0.5) -> None:
        super().__init__()
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.pos_embed = nn.Parameter(torch.zeros(1, 16, 8))
        self.roi_pool = MultiScaleRoIAlign(["0"], output_size=2, sampling_ratio=2)
        self.head = BoxHead(8 * 2 * 2, num_classes)

    def postprocess(self, logits: Tensor, boxes: Tensor, image_size: tuple[int, int]) -> list[Tensor]:
        scores, labels = logits.softmax(-1).max(-1)
        boxes = clip_boxes_to_image(boxes, image_size)
        keep = remove_small_boxes(boxes, 1e-2)
        boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
        keep = scores > self.score_thresh
        boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
        keep = batched_nms(boxes, scores, labels, self.nms_thresh)
        return [boxes[keep], scores[keep], labels[keep]]

    def match(self, proposals: Tensor, anchors: Tensor) -> Tensor:
        overlap = box_iou(proposals, anchors)
        best = box_ops.box_iou(anchors, proposals).max(0).values
        return overlap.max(1).values + best

    def forward(self, images: Tensor, proposals: Tensor) -> list[Tensor]:
        pos = resample_abs_pos_embed(self.pos_embed, new_size=[4, 4], num_prefix_tokens=0)
        features = {"0": images + pos.mean()}
        pooled = self.roi_pool(features, [proposals], [(images.shape[-2], images.shape[-1])])
        logits, deltas = self.head(pooled)
        quality = self.match(proposals, proposals + deltas)
        image_size = (images.shape[-2], images.shape[-1])
        return self.postprocess(logits * quality[:, None], proposals + deltas, image_size)
