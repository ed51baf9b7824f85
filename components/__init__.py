"""Reusable UI pieces (figures and widgets). No data access of their own."""
