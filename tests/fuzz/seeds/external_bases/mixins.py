from ...modeling_utils import PreTrainedModel
from typing import Generic
class ToyPreTrainedModel(PreTrainedModel):
    pass
class Net(ToyPreTrainedModel):
    def forward(self, x):
        return x
class Other(ToyPreTrainedModel, Generic):
    pass
#--
from .utils import PushToHubMixin
from .integrations import PeftAdapterMixin
from .hub import Loop
if TYPE_CHECKING:
    from .peft import Lazy
class ModuleUtilsMixin:
    def num_parameters(self):
        return 0
class PushToHubMixin(Loop):
    def push_to_hub(self):
        pass
class Diamond(ModuleUtilsMixin, ModuleUtilsMixin, ModuleUtilsMixin):
    def m(self):
        pass
class PreTrainedModel(nn.Module, ModuleUtilsMixin, PushToHubMixin, PeftAdapterMixin, Lazy, Diamond):
    pass
