"""ModuleInfo records, one module per family of torch.nn modules."""
from primkit.opinfo.modules import (activation, convolution, dropout, embedding, linear, loss, normalization, padding,
                            pooling, recurrent, shape, transformer, upsampling)

FAMILIES = (convolution, normalization, activation, pooling, padding, dropout, embedding, recurrent, transformer,
            upsampling, linear, loss, shape)
RECORDS = [m for fam in FAMILIES for m in fam.MODULES]
