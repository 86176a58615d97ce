"""Live rollouts on a Ray cluster: the episodes a page shows, recorded by actors on the
cluster's nodes and streamed back frame by frame (`recorders`), over a connection made once per
process (`connect`). Ray is an extra (``pip install 'paretoscope[ray]'``): nothing here imports
it before a cluster is asked for. No Streamlit here."""
