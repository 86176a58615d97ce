#!/bin/sh
touch /tmp/paretoscope-bad-input-executed
