"""The torch networks behind the conditioned agents: a decision transformer and a tanh MLP.

Both are plain `nn.Module`s that know nothing about environments, preferences or scales; the
agents in `paretoscope.agents.conditioned` build their inputs. Parameter names follow PEDA where
that
costs nothing, so a PEDA state_dict maps onto them with a short, explicit key map
(`paretoscope.agents.peda`):

- `DecisionTransformer` uses PEDA's own names (``transformer.h.{i}.attn.c_attn.weight``,
  ``embed_state.weight``, ``predict_action.0.weight``, ...). GPT-2's "Conv1D" projections keep
  their [in, out] weight layout and are applied as ``x @ W + b``. The causal mask is built on the
  fly with GPT-2's finite constants (masked score -1e4, padding adds -1e4), so outputs match
  PEDA's exactly, padded positions included.
- `MLPActor` is ``tanh(Linear(ReLU(Linear(...))))`` with dropout after each ReLU; it serves both
  MORvS (input = state and goal) and BC (input = a flattened window of states).

Without autograd (every agent `act`, any `torch.no_grad` use) the matrix products go through
`paretoscope.agents.invariant` and the other non-trivial functions (tanh, GELU, softmax, LayerNorm)
through `paretoscope.agents.portable_math`, so each batch row's output is bit-identical whatever
else
is in the batch and whatever the CPU; with autograd (training) they are torch's own kernels.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional

from paretoscope.agents import invariant, portable_math

# GPT-2 (transformers 4.5.1, as PEDA pins it) replaces masked attention scores by this constant
# and adds it again for padded keys; -inf would change the outputs at padded positions.
MASKED_SCORE = -10000.0

ACTIVATIONS = ("relu", "gelu_new")


class GELUNew(nn.GELU):
    """GPT-2's tanh GELU (`portable_math.gelu_new` without autograd)."""

    def __init__(self) -> None:
        super().__init__(approximate="tanh")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return portable_math.gelu_new(x) if invariant.enabled() else super().forward(x)


class Tanh(nn.Tanh):
    """`nn.Tanh`, `portable_math.tanh` without autograd."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return tanh(x)


class Sigmoid(nn.Sigmoid):
    """`nn.Sigmoid`, `portable_math.sigmoid` without autograd."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return portable_math.sigmoid(x) if invariant.enabled() else super().forward(x)


class Softmax(nn.Softmax):
    """`nn.Softmax` over the last dimension, `portable_math.softmax` without autograd."""

    def __init__(self) -> None:
        super().__init__(dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax(x)


class LogSoftmax(nn.LogSoftmax):
    """`nn.LogSoftmax` over the last dimension, `portable_math.log_softmax` without autograd."""

    def __init__(self) -> None:
        super().__init__(dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return portable_math.log_softmax(x) if invariant.enabled() else super().forward(x)


class LayerNorm(nn.LayerNorm):
    """`nn.LayerNorm` over the last dimension (same parameters and state_dict keys),
    `portable_math.layer_norm` without autograd."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if invariant.enabled() and len(self.normalized_shape) == 1:
            return portable_math.layer_norm(x, self.weight, self.bias, self.eps)
        return super().forward(x)


def tanh(x: torch.Tensor) -> torch.Tensor:
    return portable_math.tanh(x) if invariant.enabled() else torch.tanh(x)


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension."""
    return portable_math.softmax(x) if invariant.enabled() else torch.softmax(x, dim=-1)


def _activation(name: str) -> nn.Module:
    if name == "relu":
        return nn.ReLU()
    if name == "gelu_new":
        return GELUNew()
    raise ValueError(f"unknown activation {name!r}; known: {', '.join(ACTIVATIONS)}")


class Linear(nn.Linear):
    """`nn.Linear` (same parameters and state_dict keys), batch-invariant without autograd."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if invariant.enabled():
            return invariant.linear(x, self.weight, self.bias)
        return super().forward(x)


def _matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return invariant.matmul(a, b) if invariant.enabled() else torch.matmul(a, b)


class TransposedLinear(nn.Module):
    """GPT-2's "Conv1D": an affine map whose weight is stored [in, out], applied as x @ W + b."""

    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if invariant.enabled():
            return invariant.linear(x, self.weight, self.bias, out_by_in=False)
        flat = torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight)
        return flat.reshape(*x.shape[:-1], self.weight.shape[1])


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention with GPT-2's parameter names and masking constants."""

    def __init__(self, hidden_size: int, n_head: int, dropout: float) -> None:
        super().__init__()
        if hidden_size % n_head:
            raise ValueError(f"hidden size {hidden_size} is not a multiple of n_head={n_head}")
        self.n_head = n_head
        self.c_attn = TransposedLinear(hidden_size, 3 * hidden_size)
        self.c_proj = TransposedLinear(hidden_size, hidden_size)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, padding_scores: torch.Tensor | None) -> torch.Tensor:
        batch, length, hidden = x.shape
        head_size = hidden // self.n_head
        query, key, value = self.c_attn(x).split(hidden, dim=2)

        def heads(t: torch.Tensor) -> torch.Tensor:
            return t.reshape(batch, length, self.n_head, head_size).transpose(1, 2)

        query, key, value = heads(query), heads(key), heads(value)
        scores = _matmul(query, key.transpose(-1, -2)) / math.sqrt(head_size)
        causal = torch.ones(length, length, dtype=torch.bool, device=x.device).tril()
        scores = torch.where(causal, scores, torch.full_like(scores, MASKED_SCORE))
        if padding_scores is not None:
            scores = scores + padding_scores
        weights = self.attn_dropout(softmax(scores))
        merged = _matmul(weights, value).transpose(1, 2).reshape(batch, length, hidden)
        return self.resid_dropout(self.c_proj(merged))


class TransformerMLP(nn.Module):
    """The position-wise feed-forward part of a GPT-2 block."""

    def __init__(self, hidden_size: int, inner_size: int, activation: str, dropout: float) -> None:
        super().__init__()
        self.c_fc = TransposedLinear(hidden_size, inner_size)
        self.c_proj = TransposedLinear(inner_size, hidden_size)
        self.act = _activation(activation)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class TransformerBlock(nn.Module):
    """A pre-LayerNorm GPT-2 block: x + attn(ln_1(x)), then + mlp(ln_2(.))."""

    def __init__(
        self, hidden_size: int, n_head: int, inner_size: int, activation: str, dropout: float
    ) -> None:
        super().__init__()
        self.ln_1 = LayerNorm(hidden_size, eps=1e-5)
        self.attn = CausalSelfAttention(hidden_size, n_head, dropout)
        self.ln_2 = LayerNorm(hidden_size, eps=1e-5)
        self.mlp = TransformerMLP(hidden_size, inner_size, activation, dropout)

    def forward(self, x: torch.Tensor, padding_scores: torch.Tensor | None) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x), padding_scores)
        return x + self.mlp(self.ln_2(x))


class TransformerStack(nn.Module):
    """GPT-2 without token or position embeddings: dropout, blocks `h`, final LayerNorm `ln_f`."""

    def __init__(
        self,
        hidden_size: int,
        n_layer: int,
        n_head: int,
        inner_size: int,
        activation: str,
        dropout: float,
    ) -> None:
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(
            TransformerBlock(hidden_size, n_head, inner_size, activation, dropout)
            for _ in range(n_layer)
        )
        self.ln_f = LayerNorm(hidden_size, eps=1e-5)

    def forward(
        self, embeddings: torch.Tensor, attention_mask: torch.Tensor | None
    ) -> torch.Tensor:
        padding_scores = None
        if attention_mask is not None:
            # (B, L) with 1 = keep, 0 = padding -> additive scores broadcast over heads and queries.
            keep = attention_mask.to(embeddings.dtype)[:, None, None, :]
            padding_scores = (1.0 - keep) * MASKED_SCORE
        x = self.drop(embeddings)
        for block in self.h:
            x = block(x, padding_scores)
        return self.ln_f(x)


class DecisionTransformer(nn.Module):
    """A decision transformer over (return, state, action) tokens, one triple per time step.

    Inputs are already assembled by the caller (the preference concatenated where the agent's
    conditioning says so): states (B, T, state_input), actions (B, T, action_input), returns
    (B, T, return_input), timesteps (B, T) int64, attention_mask (B, T) with 1 = real step.
    The action for step t is read from the state token of step t, so it sees R_<=t, s_<=t and
    a_<t only. There is no position embedding: time enters through `embed_timestep`.
    """

    def __init__(
        self,
        state_input: int,
        action_input: int,
        return_input: int,
        act_dim: int,
        n_obj: int,
        hidden_size: int = 512,
        n_layer: int = 3,
        n_head: int = 1,
        inner_size: int = 2048,
        activation: str = "relu",
        dropout: float = 0.1,
        max_timestep: int = 500,
        auxiliary_heads: bool = False,
    ) -> None:
        super().__init__()
        self.hidden_size = hidden_size
        self.transformer = TransformerStack(
            hidden_size, n_layer, n_head, inner_size, activation, dropout
        )
        self.embed_timestep = nn.Embedding(max_timestep, hidden_size)
        self.embed_return = Linear(return_input, hidden_size)
        self.embed_state = Linear(state_input, hidden_size)
        self.embed_action = Linear(action_input, hidden_size)
        self.embed_ln = LayerNorm(hidden_size)
        self.predict_action = nn.Sequential(Linear(hidden_size, act_dim), Tanh())
        self.auxiliary_heads = auxiliary_heads
        if auxiliary_heads:
            # PEDA's return and preference heads: trained only with extra losses that its
            # published runs switch off. Kept so an imported checkpoint loses nothing.
            self.embed_pref = Linear(n_obj, hidden_size, bias=False)
            self.predict_return = Linear(2 * hidden_size, n_obj)
            self.predict_pref = nn.Sequential(Linear(2 * hidden_size, n_obj), Softmax())

    @property
    def max_timestep(self) -> int:
        return int(self.embed_timestep.num_embeddings)

    def hidden_states(
        self,
        states: torch.Tensor,
        actions: torch.Tensor,
        returns: torch.Tensor,
        timesteps: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The transformer's output as (B, 3, T, H): index 0 = return, 1 = state, 2 = action."""
        batch, length = states.shape[0], states.shape[1]
        time = self.embed_timestep(timesteps)
        tokens = torch.stack(
            (
                self.embed_return(returns) + time,
                self.embed_state(states) + time,
                self.embed_action(actions) + time,
            ),
            dim=2,
        ).reshape(batch, 3 * length, self.hidden_size)
        tokens = self.embed_ln(tokens)
        token_mask = None
        if attention_mask is not None:
            token_mask = attention_mask.repeat_interleave(3, dim=1)
        hidden = self.transformer(tokens, token_mask)
        return hidden.reshape(batch, length, 3, self.hidden_size).permute(0, 2, 1, 3)

    def forward(
        self,
        states: torch.Tensor,
        actions: torch.Tensor,
        returns: torch.Tensor,
        timesteps: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Predicted actions in [-1, 1], shape (B, T, act_dim)."""
        hidden = self.hidden_states(states, actions, returns, timesteps, attention_mask)
        return self.predict_action(hidden[:, 1])

    def auxiliary_predictions(self, hidden: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """PEDA's return and preference predictions from `hidden_states` output."""
        if not self.auxiliary_heads:
            raise ValueError("this decision transformer was built without auxiliary heads")
        returns = self.predict_return(torch.cat((hidden[:, 1], hidden[:, 2]), dim=-1))
        preferences = self.predict_pref(torch.cat((hidden[:, 0], hidden[:, 2]), dim=-1))
        return returns, preferences


class MLPActor(nn.Module):
    """tanh(output(... dropout(relu(layers[0](x))) ...)): actions in [-1, 1]."""

    def __init__(
        self, input_size: int, hidden_sizes: list[int], output_size: int, dropout: float = 0.1
    ) -> None:
        super().__init__()
        if not hidden_sizes:
            raise ValueError("an MLP actor needs at least one hidden layer")
        sizes = [input_size, *hidden_sizes]
        self.layers = nn.ModuleList(
            Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:], strict=True)
        )
        self.output = Linear(sizes[-1], output_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = functional.relu(layer(x))
            if self.training:  # evaluation's dropout is the identity: skip its call per layer
                x = self.dropout(x)
        return tanh(self.output(x))
