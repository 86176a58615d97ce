"""The Streamlit front end of paretoscope: pages, widgets and plotly figure builders."""
