"""The formulas shipped with transgrad, one family per module (installed as transgrad.formulas).

Every module here is translated to C++ at build time and imported by the reference engine.
"""
