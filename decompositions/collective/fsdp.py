"""Decompositions of FSDP2's own ops (``torch.ops.fsdp``, which ``torch.distributed.fsdp`` defines): the
copies around its all_gather and reduce_scatter, as the ATen ops its kernels call. They register once a
program imports FSDP2 (``register_when_defined``), so that importing primkit does not import it.

FSDP2's collectives themselves are c10d ops (``c10d::_allgather_base_``, ``c10d::_reduce_scatter_base_``):
decompositions/collective/c10d.py.
"""
from __future__ import annotations

from primkit.decompositions.common import aten
from primkit.decompositions.registry import register_when_defined


@register_when_defined("fsdp::all_gather_copy_in")
def all_gather_copy_in(all_gather_inputs, all_gather_output, inp_split_sizes, all_gather_input_numel, rank):
    """This rank's parameters, flat, copied into its slot of the all_gather's output buffer."""
    all_gather_input = aten.narrow(all_gather_output, 0, all_gather_input_numel * rank, all_gather_input_numel)
    for dst, src in zip(aten.split_with_sizes(all_gather_input, inp_split_sizes), all_gather_inputs):
        aten.copy_(dst, src)
    return all_gather_input, all_gather_output


@register_when_defined("fsdp::split_with_sizes_copy")
def split_with_sizes_copy(all_gather_output, all_gather_input_split_sizes, dim=0, *, out):
    aten.split_with_sizes_copy.out(all_gather_output, all_gather_input_split_sizes, dim, out=out)


@register_when_defined("fsdp::chunk_cat")
def chunk_cat(tensors, dim, num_chunks, *, out):
    aten._chunk_cat.out(tensors, dim, num_chunks, out=out)
