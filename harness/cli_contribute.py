import click

@click.command("import")
def import_capture():
    """placeholder"""

@click.command()
def new():
    """placeholder"""
